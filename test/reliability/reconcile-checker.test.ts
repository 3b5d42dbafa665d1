// The reconciliation checker itself must catch what it is there to catch: a lost write, a refused write that is
// present, a record written twice, a skipped version, and it must accept either outcome of a write in doubt.
import assert from "node:assert/strict";
import { test } from "node:test";
import { type LoadRow, reconcile } from "../support/reconcile.js";
import type { LoggedWrite, WriteLog } from "../support/write-load.js";

function write(partial: Partial<LoggedWrite> & Pick<LoggedWrite, "operation" | "record" | "outcome">): LoggedWrite {
  return { client: 1, id: 1, name: partial.record, versionBefore: -1, versionAfter: 0, status: 200, at: 0, ...partial };
}

function logOf(writes: LoggedWrite[]): WriteLog {
  return { prefix: "p", writes, durationMs: 1, rowsSql: "" };
}

const inserted = write({ operation: "insert", record: "p-a", outcome: "acknowledged", id: 1 });
const updated = write({ operation: "update", record: "p-a", outcome: "acknowledged", name: "p-a~1", versionBefore: 0, versionAfter: 1 });

test("rows that match the acknowledged writes reconcile", () => {
  const result = reconcile(logOf([inserted, updated]), [{ id: 1, name: "p-a~1", version: 1, deleted: false }]);
  assert.equal(result.ok, true);
  assert.equal(result.acknowledged, 2);
});

test("an acknowledged update whose row holds the older state is lost", () => {
  const result = reconcile(logOf([inserted, updated]), [{ id: 1, name: "p-a", version: 0, deleted: false }]);
  assert.equal(result.lost.length, 1);
  assert.equal(result.ok, false);
});

test("an acknowledged insert without its row is lost", () => {
  assert.equal(reconcile(logOf([inserted]), []).lost.length, 1);
});

test("a refused insert whose row is present, a record inserted twice and a row no write explains are phantoms", () => {
  const refused = write({ operation: "insert", record: "p-b", outcome: "refused", status: 409, id: undefined });
  const rows: LoadRow[] = [
    { id: 2, name: "p-b", version: 0, deleted: false },
    { id: 1, name: "p-a", version: 0, deleted: false },
    { id: 3, name: "p-a", version: 0, deleted: false },
    { id: 4, name: "p-z", version: 0, deleted: false },
  ];
  const result = reconcile(logOf([inserted, refused]), rows);
  assert.equal(result.phantom.length, 3, result.phantom.join("\n"));
});

test("a 503 whose write is present is counted apart, not as a phantom", () => {
  const unavailable = write({ operation: "insert", record: "p-b", outcome: "refused", status: 503, id: undefined });
  const result = reconcile(logOf([unavailable]), [{ id: 2, name: "p-b", version: 0, deleted: false }]);
  assert.deepEqual([result.ok, result.unavailable, result.unavailableApplied], [true, 1, 1]);
});

test("a version that skips, in the row or in an answer, is a mismatch", () => {
  assert.equal(reconcile(logOf([inserted, updated]), [{ id: 1, name: "p-a~1", version: 2, deleted: false }]).mismatched.length, 1);
  const skipped = { ...updated, versionAfter: 2 };
  assert.equal(reconcile(logOf([inserted, skipped]), [{ id: 1, name: "p-a~1", version: 2, deleted: false }]).mismatched.length, 1);
});

test("a write in doubt may or may not be applied, and is counted apart", () => {
  const doubtful = write({ operation: "delete", record: "p-a", outcome: "in-doubt", status: 0, versionBefore: 1 });
  const before = reconcile(logOf([inserted, updated, doubtful]), [{ id: 1, name: "p-a~1", version: 1, deleted: false }]);
  const after = reconcile(logOf([inserted, updated, doubtful]), [{ id: 1, name: "p-a~1", version: 2, deleted: true }]);
  assert.deepEqual([before.ok, before.inDoubt, before.inDoubtApplied], [true, 1, 0]);
  assert.deepEqual([after.ok, after.inDoubt, after.inDoubtApplied], [true, 1, 1]);
  const neither = reconcile(logOf([inserted, updated, doubtful]), [{ id: 1, name: "p-a", version: 0, deleted: false }]);
  assert.equal(neither.ok, false);
});
