// A write load for reconciliation tests: N concurrent HTTP clients insert, update and delete demo companies
// for a fixed time and log every write with what its answer said. `reconcile` (reconcile.ts) then compares the
// log with the rows. Each client writes only companies it inserted itself, so every answer is predictable:
// any 409 or unexpected state is a finding, not a race between clients.
import { randomBytes } from "node:crypto";

/** What a write's answer said about it. */
export type WriteOutcome =
  /** A 2xx: the write is committed. */
  | "acknowledged"
  /** A 4xx or 503: the write must not be in the database. */
  | "refused"
  /** No answer (connection reset, timeout) or a 5xx other than 503: the write may or may not be there. */
  | "in-doubt";

/** One write of the load and its outcome. */
export interface LoggedWrite {
  readonly client: number;
  readonly operation: "insert" | "update" | "delete";
  /** The record's name as inserted (its identity in the log: updates add `~<n>` to it). */
  readonly record: string;
  /** The id of the row, when known (an insert learns it from its answer). */
  readonly id: number | undefined;
  /** The name the write sets (insert and update). */
  readonly name: string;
  /** The version the write was sent with (update, delete); -1 for an insert. */
  readonly versionBefore: number;
  /** The version the answer reported (insert, update), or -1. */
  readonly versionAfter: number;
  readonly outcome: WriteOutcome;
  /** The HTTP status, or 0 when there was no answer. */
  readonly status: number;
  /** Milliseconds from the start of the load to the answer. */
  readonly at: number;
}

/** The log of a load run. */
export interface WriteLog {
  /** The prefix of every name this run inserted (`load-<hex>`): the rows to reconcile are those whose Name starts with it. */
  readonly prefix: string;
  readonly writes: readonly LoggedWrite[];
  readonly durationMs: number;
  /** The SQL that reads this run's rows for `reconcile` (aliases id, name, version, deletedat; works on every engine). */
  readonly rowsSql: string;
}

/** Options of `runWriteLoad`. */
export interface WriteLoadOptions {
  /** The demo's base URL, such as `http://127.0.0.1:8022/api`. */
  readonly baseUrl: string;
  /** A bearer token with the write area (the demo's editor). */
  readonly token: string;
  readonly durationMs: number;
  /** Concurrent clients, each with its own sequence of writes (default 8). */
  readonly clients?: number;
  /** Milliseconds before a request without an answer counts as in doubt (default 15000). */
  readonly requestTimeoutMs?: number;
  /** Keeps the clients writing past `durationMs` until this settles (a fault injected during the load, say). */
  readonly extendUntil?: Promise<unknown>;
  /**
   * Keeps each client writing past `durationMs` until it has logged this many writes (default 0), so that a
   * machine busy with other work still yields a load of a known size instead of a load-dependent one.
   */
  readonly minWritesPerClient?: number;
  /** Called when a write has been logged (for tests that inject a fault at some point of the load). */
  readonly onWrite?: (write: LoggedWrite) => void;
}

/** A record as one client knows it. */
interface KnownRecord {
  readonly base: string;
  id: number;
  version: number;
  updates: number;
  /** Set once a write of the record went unanswered or was answered 503: the client leaves it alone from then on. */
  doubtful: boolean;
  deleted: boolean;
}

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown> | undefined;
}

/** Logs on to the demo as `user` (default the editor) and answers the bearer token. */
export async function demoToken(baseUrl: string, user = "editor"): Promise<string> {
  const response = await fetch(`${baseUrl}/logon`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username: user, password: user }),
  });
  if (response.status !== 200) throw new Error(`logon as ${user} answered ${response.status}`);
  return ((await response.json()) as { token: string }).token;
}

/**
 * Runs the load: `clients` loops that, until `durationMs` has passed, insert a company, update one of their
 * own (a new name, the version they hold), or delete one of their own, and log each write with its outcome.
 */
export async function runWriteLoad(options: WriteLoadOptions): Promise<WriteLog> {
  const prefix = `load-${randomBytes(4).toString("hex")}`;
  const writes: LoggedWrite[] = [];
  const started = Date.now();
  const deadline = started + options.durationMs;
  const timeoutMs = options.requestTimeoutMs ?? 15_000;
  let extended = options.extendUntil !== undefined;
  options.extendUntil?.then(
    () => (extended = false),
    () => (extended = false),
  );
  const headers = { Authorization: `Bearer ${options.token}`, "Content-Type": "application/json" };

  async function send(method: string, path: string, body?: unknown): Promise<Answer> {
    try {
      const response = await fetch(`${options.baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.text();
      let parsed: Record<string, unknown> | undefined;
      try {
        parsed = text === "" ? undefined : (JSON.parse(text) as Record<string, unknown>);
      } catch {
        parsed = undefined;
      }
      return { status: response.status, body: parsed };
    } catch {
      return { status: 0, body: undefined };
    }
  }

  function outcomeOf(status: number): WriteOutcome {
    if (status >= 200 && status < 300) return "acknowledged";
    if ((status >= 400 && status < 500) || status === 503) return "refused";
    return "in-doubt";
  }

  function log(write: Omit<LoggedWrite, "at">): LoggedWrite {
    const logged = { ...write, at: Date.now() - started };
    writes.push(logged);
    options.onWrite?.(logged);
    return logged;
  }

  async function client(index: number): Promise<void> {
    const records: KnownRecord[] = [];
    let inserted = 0;
    let logged = 0;
    const minWrites = options.minWritesPerClient ?? 0;
    while (Date.now() < deadline || extended || logged < minWrites) {
      logged++;
      const live = records.filter((record) => !record.deleted && !record.doubtful);
      const dice = Math.random();
      if (live.length === 0 || dice < 0.4) {
        const base = `${prefix}-c${index}-${++inserted}`;
        const answer = await send("POST", "/companies", { name: base });
        const outcome = outcomeOf(answer.status);
        const id = typeof answer.body?.id === "number" ? answer.body.id : undefined;
        const version = typeof answer.body?.versionId === "number" ? answer.body.versionId : -1;
        log({
          client: index,
          operation: "insert",
          record: base,
          id,
          name: base,
          versionBefore: -1,
          versionAfter: version,
          outcome,
          status: answer.status,
        });
        if (outcome === "acknowledged" && id !== undefined)
          records.push({ base, id, version, updates: 0, doubtful: false, deleted: false });
        continue;
      }
      const record = live[Math.floor(Math.random() * live.length)];
      if (dice < 0.8) {
        const name = `${record.base}~${record.updates + 1}`;
        const answer = await send("PUT", "/companies", { id: record.id, name, versionId: record.version });
        const outcome = outcomeOf(answer.status);
        const version = typeof answer.body?.versionId === "number" ? answer.body.versionId : -1;
        log({
          client: index,
          operation: "update",
          record: record.base,
          id: record.id,
          name,
          versionBefore: record.version,
          versionAfter: version,
          outcome,
          status: answer.status,
        });
        if (outcome === "acknowledged") {
          record.updates++;
          record.version = version;
        } else if (outcome === "in-doubt" || answer.status === 503) record.doubtful = true;
      } else {
        const answer = await send("DELETE", `/companies/${record.id}/${record.version}`);
        const outcome = outcomeOf(answer.status);
        log({
          client: index,
          operation: "delete",
          record: record.base,
          id: record.id,
          name: "",
          versionBefore: record.version,
          versionAfter: -1,
          outcome,
          status: answer.status,
        });
        if (outcome === "acknowledged") record.deleted = true;
        else if (outcome === "in-doubt" || answer.status === 503) record.doubtful = true;
      }
    }
  }

  await Promise.all(Array.from({ length: options.clients ?? 8 }, (_, index) => client(index + 1)));
  return {
    prefix,
    writes,
    durationMs: Date.now() - started,
    rowsSql: `SELECT ID AS id, Name AS name, VersionID AS version, DeletedAt AS deletedat FROM Companies WHERE Name LIKE '${prefix}-%'`,
  };
}
