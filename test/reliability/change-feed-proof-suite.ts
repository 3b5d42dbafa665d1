// The change feed's proof, written once for every engine (docs/changes.md): the proof application
// (change-feed-app.ts) served by four workers takes writes from concurrent clients, a tenth of them in
// transactions that roll back and some held open while later ids commit, and one worker (the webhooks' lease
// holder) is killed with SIGKILL mid-run. Then:
// - a subscriber of tenant alpha that disconnects and resumes with Last-Event-ID many times has received every
//   committed change of its tenant exactly once, in version order per key, none rolled back; the change log
//   agrees with the tables; tenant beta's subscriber received beta's changes only; a caller without the read
//   area got 403 and nothing else;
// - the webhook receiver that was down at the start receives every change afterwards, in order per key; the
//   receiver that always fails fills the dead-letter table after the configured attempts; replay delivers them.
// `npm test` runs WRITES_CI writes and keeps the receiver down for DOWN_CI_MS; TENON_LONG=1 runs 10,000 writes
// and 60 s.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { after, describe, test } from "node:test";
import { ChangeWebhooks, WebhookSignature } from "tenon";
import type { DemoDatabase, DemoEngine } from "../demo/demo-engines.js";
import { ResumingSubscriber } from "../support/resuming-subscriber.js";
import { WebhookReceiver, type ReceivedAttempt } from "../support/webhook-receiver.js";
import { openProofDatabase, ProofItem, proofSubscriptions } from "./change-feed-model.js";

const long = process.env.TENON_LONG === "1";
const appMain = fileURLToPath(new URL("./change-feed-app.js", import.meta.url));

/** The sizes of one proof run. */
export interface ProofSize {
  /** Writes in all (each request one write). */
  readonly writes: number;
  /** How long the steady receiver is down from the start, in ms. */
  readonly downMs: number;
}

/** The sizes of `npm test` and of TENON_LONG=1. */
export function proofSize(ci: ProofSize): ProofSize {
  return long ? { writes: 10_000, downMs: 60_000 } : ci;
}

/** The proof application as a child process with its workers. */
interface ProofApp {
  readonly port: number;
  output(): string;
  workerPids(): number[];
  stop(): Promise<void>;
}

function startProofApp(env: Record<string, string>): Promise<ProofApp> {
  const child: ChildProcess = spawn(process.execPath, [appMain], {
    env: { ...process.env, PORT: "0", DATABASE_URL: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  child.stdout?.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  child.stderr?.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const alive = (pid: number): boolean => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      const ports = [...text.matchAll(/proof listening on http:\/\/127\.0\.0\.1:(\d+)\/api/g)];
      if (/tenon: primary \d+ serves with workers/.test(text) && ports.length > 0) {
        clearInterval(timer);
        resolve({
          port: Number(ports[0][1]),
          output: () => text,
          workerPids: () => [...new Set([...text.matchAll(/\(process (\d+), owner/g)].map((match) => Number(match[1])))].filter(alive),
          async stop() {
            child.kill("SIGTERM");
            const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
            await exited;
            clearTimeout(killer);
          },
        });
      }
    }, 50);
    void exited.then(() => {
      clearInterval(timer);
      reject(new Error(`The proof application exited before serving:\n${text}`));
    });
  });
}

/** What the clients learned from their answers. */
interface LoadLog {
  readonly acknowledgedInserts: Set<number>;
  /** The names written by transactions that rolled back (inserts and updates): never in a record or a row. */
  readonly rolledBackNames: Set<string>;
  readonly rolledBack: number;
  readonly held: number;
  readonly sent: number;
  readonly unanswered: number;
}

/** What the proof application answers to a write (the fields the clients read). */
interface Answered {
  readonly id: number;
  readonly versionId: number;
  readonly rolledBack: boolean;
  readonly inserted: readonly { readonly id: number; readonly versionId: number }[];
  readonly updated: readonly { readonly versionId: number }[];
}

/** One client's item, as far as it knows. */
interface Known {
  readonly id: number;
  version: number;
}

/**
 * `clients` concurrent clients send `writes` writes in all: inserts, updates and deletes of their own items
 * through the generic routes, and transactions (POST /tx) of which half roll back (a tenth of every write);
 * a twentieth of the transactions hold their transaction open for 300 ms after drawing their keys.
 */
async function runLoad(base: string, writes: number, clients: number, onProgress: (sent: number) => void): Promise<LoadLog> {
  const log = {
    acknowledgedInserts: new Set<number>(),
    rolledBackNames: new Set<string>(),
    rolledBack: 0,
    held: 0,
    sent: 0,
    unanswered: 0,
  };
  const send = async (user: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Answered }> => {
    try {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { "X-User": user, "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(60_000),
      });
      const text = await response.text();
      return { status: response.status, json: (text === "" ? {} : JSON.parse(text)) as Answered };
    } catch {
      log.unanswered++;
      return { status: 0, json: {} as Answered };
    }
  };
  const client = async (index: number): Promise<void> => {
    // Three clients in four write for tenant alpha, the others for beta.
    const tenant = index % 4 === 3 ? "beta" : "alpha";
    const user = `writer${index};${tenant};read,write`;
    const mine: Known[] = [];
    let n = 0;
    while (log.sent < writes) {
      log.sent++;
      onProgress(log.sent);
      const dice = Math.random();
      const name = `c${index}-${++n}`;
      if (dice < 0.2) {
        const rollback = dice < 0.1;
        const holdMs = Math.random() < 0.05 ? 300 : Math.floor(Math.random() * 15);
        if (holdMs === 300) log.held++;
        const own = mine.length > 0 && Math.random() < 0.5 ? mine.splice(Math.floor(Math.random() * mine.length), 1)[0] : undefined;
        const inserts = Array.from({ length: 1 + Math.floor(Math.random() * 2) }, (_, i) => `${name}-t${i}`);
        const answer = await send(user, "POST", "/tx", {
          inserts,
          updates: own === undefined ? [] : [{ id: own.id, name }],
          holdMs,
          rollback,
        });
        if (answer.status !== 200) continue;
        const result = answer.json;
        if (result.rolledBack) {
          log.rolledBack++;
          for (const inserted of inserts) log.rolledBackNames.add(inserted);
          if (own !== undefined) {
            log.rolledBackNames.add(name);
            mine.push(own);
          }
        } else {
          for (const each of result.inserted) {
            log.acknowledgedInserts.add(each.id);
            mine.push({ id: each.id, version: each.versionId });
          }
          if (own !== undefined) mine.push({ id: own.id, version: result.updated[0].versionId });
        }
      } else if (mine.length === 0 || dice < 0.6) {
        const answer = await send(user, "POST", "/items", { name });
        if (answer.status !== 200) continue;
        log.acknowledgedInserts.add(answer.json.id);
        mine.push({ id: answer.json.id, version: answer.json.versionId });
      } else if (dice < 0.9) {
        const own = mine.splice(Math.floor(Math.random() * mine.length), 1)[0];
        const answer = await send(user, "PUT", "/items", { id: own.id, name, versionId: own.version });
        // An unanswered write leaves the item's version unknown: the client leaves it alone from then on.
        if (answer.status === 200) mine.push({ id: own.id, version: answer.json.versionId });
      } else {
        const own = mine.splice(Math.floor(Math.random() * mine.length), 1)[0];
        await send(user, "DELETE", `/items/${own.id}/${own.version}`);
      }
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, index) => client(index)));
  return log;
}

async function waitFor(
  condition: () => Promise<boolean> | boolean,
  what: string,
  timeoutMs = 600_000,
  state?: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`${what}: not within ${timeoutMs / 1000} s${state === undefined ? "" : `: ${state()}`}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A change record as the log keeps it. */
interface LoggedChange {
  readonly position: number;
  readonly key: number;
  readonly action: string;
  readonly version: number;
  readonly tenant: string;
  readonly name: string | undefined;
}

/** Checks that each key's events come in increasing version order (repeats of an id already seen skipped). */
function assertOrderPerKey(what: string, events: readonly { id: number; key: number; version: number }[]): void {
  const seen = new Set<number>();
  const last = new Map<number, number>();
  for (const event of events) {
    if (seen.has(event.id)) continue;
    seen.add(event.id);
    const before = last.get(event.key) ?? -1;
    assert.ok(event.version > before, `${what}: key ${event.key} got version ${event.version} after ${before}`);
    last.set(event.key, event.version);
  }
}

/** Defines the proof on one engine. */
export function defineChangeFeedProof(engine: DemoEngine, size: ProofSize, extraEnv: Record<string, string> = {}): void {
  describe(`the change feed's proof on ${engine.name} with WORKERS=4`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    });

    test(
      `${size.writes} writes, a tenth rolled back, some held open, a worker killed: every subscriber and webhook ` +
        "receives each committed change of its own exactly once, in order per key",
      async () => {
        const db: DemoDatabase = await engine.open();
        cleanups.push(() => db.close());
        const secret = WebhookSignature.newSecret();
        const steady = await WebhookReceiver.start(secret);
        cleanups.push(() => steady.stop());
        await steady.down();
        const failing = await WebhookReceiver.start(secret);
        cleanups.push(() => failing.stop());
        failing.accepting = false;
        const env = {
          ...db.env,
          ...extraEnv,
          WORKERS: "4",
          HOOK_STEADY_URL: steady.url,
          HOOK_FAILING_URL: failing.url,
          HOOK_SECRET: secret,
        };
        const app = await startProofApp(env);
        cleanups.push(() => app.stop());
        await waitFor(() => app.workerPids().length >= 4, "four workers", 120_000);
        const base = `http://127.0.0.1:${app.port}/api`;

        const alpha = new ResumingSubscriber(app.port, "/api/items/changes", { "X-User": "watcher;alpha;read" }, [20, 100]);
        const beta = new ResumingSubscriber(app.port, "/api/items/changes", { "X-User": "watcherb;beta;read" }, [5, 20]);
        cleanups.push(
          () => alpha.stop(),
          () => beta.stop(),
        );
        await Promise.all([alpha.opened, beta.opened]);
        const snoop = await fetch(`${base}/items/changes`, { headers: { "X-User": "snoop;alpha;write", Accept: "text/event-stream" } });
        const snooped = await snoop.text();
        assert.equal(snoop.status, 403);
        assert.doesNotMatch(snooped, /data:|id:/);

        const started = Date.now();
        const upAgain = new Promise<void>((resolve) => setTimeout(() => void steady.up().then(resolve), size.downMs));
        let killed: number | undefined;
        let killing: Promise<void> | undefined;
        const log = await runLoad(base, size.writes, 8, (sent) => {
          if (killing !== undefined || sent < size.writes * 0.4) return;
          killing = (async () => {
            // The worker that holds the webhooks' lease, so that another takes the deliveries over.
            const rows = await db.rows("SELECT owner AS owner FROM tenon_webhook_leases WHERE subscription = 'steady'");
            const owner = Number(String(rows[0]?.owner ?? "").split(":")[1]);
            const pids = app.workerPids();
            killed = pids.includes(owner) ? owner : pids[0];
            process.kill(killed, "SIGKILL");
          })();
        });
        await killing;
        const loadMs = Date.now() - started;
        assert.ok(killed !== undefined, "a worker was killed");
        await waitFor(() => /tenon: worker \d+ died .*signal SIGKILL/.test(app.output()), "the worker's death");

        // The change log against the tables: each key's records are versions 0, 1, 2... without a gap, the last one
        // is the row as it is (or its delete), positions are dense, and no rolled-back write left a record.
        const changes: LoggedChange[] = (
          await db.rows(
            "SELECT position AS position, entity_key AS k, action AS action, version AS version, tenant AS tenant, data AS data " +
              "FROM tenon_changes WHERE entity = 'ProofItem' ORDER BY position",
          )
        ).map((row) => ({
          position: Number(row.position),
          key: Number(row.k),
          action: String(row.action),
          version: Number(row.version),
          tenant: String(row.tenant),
          name: row.data === null ? undefined : (JSON.parse(String(row.data)) as { name: string }).name,
        }));
        const rows = await db.rows("SELECT ID AS id, TenantID AS tenant, Name AS name, VersionID AS version FROM ProofItems");
        assert.deepEqual(
          changes.map((change) => change.position),
          changes.map((_, index) => index + 1),
          "positions are dense",
        );
        const byKey = new Map<number, LoggedChange[]>();
        for (const change of changes) byKey.set(change.key, [...(byKey.get(change.key) ?? []), change]);
        for (const [key, list] of byKey) {
          assert.deepEqual(
            list.map((change) => change.version),
            list.map((_, index) => index),
            `key ${key}: versions without gaps`,
          );
          assert.equal(list[0].action, "insert");
          assert.ok(list.slice(1, -1).every((change) => change.action === "update"));
        }
        const rowsById = new Map(rows.map((row) => [Number(row.id), row]));
        for (const [key, list] of byKey) {
          const final = list[list.length - 1];
          const row = rowsById.get(key);
          if (final.action === "delete") assert.equal(row, undefined, `key ${key} was deleted`);
          else {
            assert.ok(row !== undefined, `key ${key} is a row`);
            assert.equal(Number(row.version), final.version, `key ${key}: the row's version is its last record's`);
            assert.equal(String(row.name), final.name);
            assert.equal(String(row.tenant), final.tenant);
          }
        }
        for (const id of rowsById.keys()) assert.ok(byKey.has(id), `row ${id} has records`);
        for (const id of log.acknowledgedInserts) assert.ok(byKey.has(id), `acknowledged insert ${id} has a record`);
        // (On SQLite a rolled-back insert gives its key back, and a later insert takes it: names tell writes apart.)
        for (const change of changes) assert.ok(!log.rolledBackNames.has(change.name ?? ""), `${change.name} was rolled back`);
        for (const row of rows) assert.ok(!log.rolledBackNames.has(String(row.name)), `${String(row.name)} was rolled back`);
        assert.ok(log.rolledBack >= size.writes * 0.05, `transactions rolled back (${log.rolledBack})`);
        assert.ok(log.held > 0, "transactions were held open");

        // The streams: each subscriber has every change of its tenant once, in order per key, nothing else.
        const alphaChanges = changes.filter((change) => change.tenant === "alpha");
        const betaChanges = changes.filter((change) => change.tenant === "beta");
        // On a timeout, say what is missing and how the subscriber's streams went: a gap and a stalled stream differ.
        const streamOf =
          (subscriber: ResumingSubscriber, expected: readonly LoggedChange[]): (() => string) =>
          () => {
            const got = new Set(subscriber.events.map((event) => event.id));
            const missing = expected.filter((change) => !got.has(change.position)).map((change) => change.position);
            return `missing ${missing.length} (first ${missing.slice(0, 10).join(", ")}) of ${expected.length}; ${subscriber.describe()}`;
          };
        await waitFor(() => alpha.events.length >= alphaChanges.length, "alpha's stream", undefined, streamOf(alpha, alphaChanges));
        await waitFor(() => beta.events.length >= betaChanges.length, "beta's stream", undefined, streamOf(beta, betaChanges));
        await new Promise((resolve) => setTimeout(resolve, 500));
        await alpha.stop();
        await beta.stop();
        for (const [subscriber, expected, name] of [
          [alpha, alphaChanges, "alpha"],
          [beta, betaChanges, "beta"],
        ] as const) {
          const ids = subscriber.events.map((event) => event.id);
          assert.equal(new Set(ids).size, ids.length, `${name}: no event id twice`);
          assert.deepEqual(
            subscriber.events.map((event) => [event.id, event.record.key, event.record.action, event.record.version]),
            expected.map((change) => [change.position, change.key, change.action, change.version]),
            `${name}: every change of its tenant, in commit order`,
          );
          assertOrderPerKey(
            name,
            subscriber.events.map((event) => ({ id: event.id, key: event.record.key, version: event.record.version })),
          );
          assert.ok(subscriber.connections > 3, `${name} resumed several times (${subscriber.connections} connections)`);
        }

        // The steady receiver, down at the start: every change afterwards, in order per key, signed.
        await upAgain;
        const accepted = (receiver: WebhookReceiver): ReceivedAttempt[] => receiver.accepted();
        const positions = new Set(changes.map((change) => change.position));
        await waitFor(() => new Set(accepted(steady).map((each) => Number(each.id))).size >= positions.size, "the steady webhooks");
        const steadyIds = accepted(steady).map((each) => Number(each.id));
        assert.deepEqual(
          [...new Set(steadyIds)].sort((x, y) => x - y),
          [...positions],
        );
        assert.ok(
          accepted(steady).every((each) => each.verified),
          "every delivery is signed",
        );
        assertOrderPerKey(
          "steady",
          accepted(steady).map((each) => ({ id: Number(each.id), key: each.record.key, version: each.record.version ?? -1 })),
        );

        // The failing receiver: beta's changes fill the dead-letter table, each key's first after 3 attempts.
        const adminDatabase = await openProofDatabase(env);
        cleanups.push(() => adminDatabase.close());
        const admin = new ChangeWebhooks(adminDatabase, { feeds: [ProofItem], subscriptions: proofSubscriptions(env) });
        await waitFor(async () => (await admin.deadLetterCount("failing")) === betaChanges.length, "beta's dead letters");
        const letters = [];
        for (let after = 0; ; ) {
          const page = await admin.deadLetters("failing", { after, limit: 1000 });
          if (page.length === 0) break;
          letters.push(...page);
          after = page[page.length - 1].id;
        }
        assert.deepEqual(
          letters.map((letter) => letter.id),
          betaChanges.map((change) => change.position),
        );
        const firstOfKey = new Set<number>();
        for (const letter of letters) {
          const first = !firstOfKey.has(letter.key);
          firstOfKey.add(letter.key);
          assert.equal(letter.attempts, first ? 3 : 0, `dead letter ${letter.id}: ${letter.lastError}`);
        }
        assert.ok(
          failing.attempts.every((each) => each.status === 500),
          "the failing receiver took nothing",
        );
        failing.accepting = true;
        assert.equal(await admin.replay("failing"), betaChanges.length);
        await waitFor(async () => (await admin.deadLetterCount("failing")) === 0, "the replay");
        const replayed = accepted(failing);
        assert.deepEqual(
          [...new Set(replayed.map((each) => Number(each.id)))].sort((x, y) => x - y),
          betaChanges.map((change) => change.position),
        );
        assertOrderPerKey(
          "replayed",
          replayed.map((each) => ({ id: Number(each.id), key: each.record.key, version: each.record.version ?? -1 })),
        );
        console.log(
          `${engine.name}: ${size.writes} writes in ${loadMs} ms (${log.rolledBack} rolled back, ${log.held} held 300 ms, ` +
            `${log.unanswered} unanswered; worker ${killed} killed); ${changes.length} changes; alpha ${alpha.connections} and ` +
            `beta ${beta.connections} connections; steady webhooks ${steadyIds.length} accepted for ${positions.size} changes ` +
            `(down ${size.downMs} ms); ${letters.length} dead letters replayed`,
        );
      },
    );
  });
}
