// Compares a write load's log (write-load.ts) with the rows the database holds afterwards: nothing acknowledged
// is lost, nothing refused is present, no version is skipped; writes whose answer was lost are counted apart.
import type { LoggedWrite, WriteLog } from "./write-load.js";

/** One row of the load's table as `reconcile` reads it. */
export interface LoadRow {
  readonly id: number;
  readonly name: string;
  readonly version: number;
  readonly deleted: boolean;
}

/** What a reconciliation found. */
export interface Reconciliation {
  /** Writes answered 2xx. */
  readonly acknowledged: number;
  /** Writes answered 4xx or 503. */
  readonly refused: number;
  /** Of the refused, those answered 503 (the database was away or the write conflicted past its retries). */
  readonly unavailable: number;
  /**
   * Of the 503s, those whose effect is in the database: a connection lost while COMMIT (or a self-committing
   * statement) ran leaves the outcome unknown to the server too, and it is answered 503 all the same.
   * Counted apart, like the writes in doubt, rather than as phantoms.
   */
  readonly unavailableApplied: number;
  /** Writes without an answer (or with a 5xx other than 503): their effect may or may not be there. */
  readonly inDoubt: number;
  /** Of the in-doubt writes, those whose effect is in the database. */
  readonly inDoubtApplied: number;
  /** Acknowledged writes whose effect is missing (a record absent, or an older state than acknowledged). */
  readonly lost: readonly string[];
  /** Rows that no acknowledged or in-doubt write explains: a refused write that is present, or a record twice. */
  readonly phantom: readonly string[];
  /** Rows whose version is not the one the acknowledged writes lead to (a version skipped or repeated). */
  readonly mismatched: readonly string[];
  /** True when nothing was lost, nothing is phantom and no version mismatches. */
  readonly ok: boolean;
}

/** Turns rows as a driver gives them (aliases id, name, version, deletedat) into `LoadRow`s. */
export function loadRowsOf(records: readonly Record<string, unknown>[]): LoadRow[] {
  return records.map((record) => ({
    id: Number(record.id),
    name: String(record.name),
    version: Number(record.version),
    deleted: record.deletedat !== null && record.deletedat !== undefined,
  }));
}

/** The states a record may be in after its writes: the one its acknowledged writes lead to, and what a write in doubt may have added. */
interface ExpectedState {
  readonly exists: boolean;
  /** The row's id, once an acknowledged insert reported it. */
  readonly id?: number;
  readonly name: string;
  readonly version: number;
  readonly deleted: boolean;
}

/** The record name a row belongs to (its name without the `~<n>` of updates). */
function recordOf(name: string): string {
  const mark = name.indexOf("~");
  return mark < 0 ? name : name.slice(0, mark);
}

function describe(row: LoadRow | undefined): string {
  return row === undefined ? "no row" : `row ${row.id} "${row.name}" version ${row.version}${row.deleted ? " deleted" : ""}`;
}

function same(row: LoadRow | undefined, state: ExpectedState): boolean {
  if (!state.exists) return row === undefined;
  if (row === undefined) return false;
  if (state.deleted) return row.deleted;
  return !row.deleted && row.name === state.name && row.version === state.version;
}

/**
 * Reconciles a load's log with the rows read afterwards (`log.rowsSql`, through `loadRowsOf`). Each record's
 * writes are replayed in order: acknowledged ones move its expected state, a refused one leaves it, and one in
 * doubt or answered 503 (the client stops writing the record after it) allows both the state before and the
 * state after it.
 */
export function reconcile(log: WriteLog, rows: readonly LoadRow[]): Reconciliation {
  const byRecord = new Map<string, LoggedWrite[]>();
  for (const write of log.writes) {
    const list = byRecord.get(write.record);
    if (list === undefined) byRecord.set(write.record, [write]);
    else list.push(write);
  }
  const rowsByRecord = new Map<string, LoadRow[]>();
  for (const row of rows) {
    const record = recordOf(row.name);
    const list = rowsByRecord.get(record);
    if (list === undefined) rowsByRecord.set(record, [row]);
    else list.push(row);
  }
  const lost: string[] = [];
  const phantom: string[] = [];
  const mismatched: string[] = [];
  let inDoubtApplied = 0;
  let unavailableApplied = 0;

  for (const [record, writes] of byRecord) {
    const found = rowsByRecord.get(record) ?? [];
    rowsByRecord.delete(record);
    if (found.length > 1) {
      phantom.push(`${record}: ${found.length} rows (${found.map(describe).join("; ")})`);
      continue;
    }
    const row = found[0];
    let state: ExpectedState = { exists: false, name: "", version: -1, deleted: false };
    let doubtful: { before: ExpectedState; after: ExpectedState; unavailable: boolean } | undefined;
    let refusedInsert = false;
    for (const write of writes) {
      if (write.outcome === "acknowledged" && write.operation === "update" && write.versionAfter !== write.versionBefore + 1)
        mismatched.push(`${record}: an update of version ${write.versionBefore} answered version ${write.versionAfter}`);
      const after = stateAfter(state, write);
      if (write.outcome === "acknowledged") state = after;
      else if (write.outcome === "in-doubt" || write.status === 503) doubtful = { before: state, after, unavailable: write.status === 503 };
      else if (write.operation === "insert") refusedInsert = true;
    }
    if (doubtful !== undefined) {
      if (same(row, doubtful.before)) continue;
      if (same(row, doubtful.after)) {
        if (doubtful.unavailable) unavailableApplied++;
        else inDoubtApplied++;
      } else mismatched.push(`${record}: ${describe(row)}, neither the state before nor the state after the write in doubt`);
      continue;
    }
    if (same(row, state)) continue;
    if (!state.exists) {
      phantom.push(`${record}: ${describe(row)} although its insert was ${refusedInsert ? "refused" : "never acknowledged"}`);
    } else if (row === undefined) {
      lost.push(`${record}: acknowledged as row ${state.id ?? "?"} "${state.name}" version ${state.version}, but absent`);
    } else if (!state.deleted && row.name === state.name) {
      mismatched.push(`${record}: ${describe(row)}, acknowledged version ${state.version}`);
    } else {
      lost.push(`${record}: ${describe(row)}, acknowledged ${state.deleted ? "deleted" : `"${state.name}" version ${state.version}`}`);
    }
  }
  for (const [record, found] of rowsByRecord) phantom.push(`${record}: ${found.map(describe).join("; ")} with no write in the log`);

  const count = (outcome: string): number => log.writes.filter((write) => write.outcome === outcome).length;
  return {
    acknowledged: count("acknowledged"),
    refused: count("refused"),
    unavailable: log.writes.filter((write) => write.status === 503).length,
    inDoubt: count("in-doubt"),
    inDoubtApplied,
    unavailableApplied,
    lost,
    phantom,
    mismatched,
    ok: lost.length === 0 && phantom.length === 0 && mismatched.length === 0,
  };
}

/** The state a write leads to when it is applied. */
function stateAfter(state: ExpectedState, write: LoggedWrite): ExpectedState {
  switch (write.operation) {
    case "insert":
      return { exists: true, name: write.name, version: Math.max(0, write.versionAfter), deleted: false, id: write.id };
    case "update":
      return { ...state, name: write.name, version: write.versionAfter < 0 ? write.versionBefore + 1 : write.versionAfter };
    case "delete":
      return { ...state, deleted: true };
  }
}
