import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Context, DatabaseError } from "tenon";
import { SqliteDatabase } from "tenon/sqlite";
import { betterSqlite3Absence, nodeSqliteAbsence } from "../../support/sqlite-drivers.js";

function withFile(work: (file: string) => Promise<void>): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), "tenon-driver-"));
  return work(join(directory, "driver.sqlite")).finally(() => rmSync(directory, { recursive: true, force: true }));
}

test("without a driver named, a database opens on node:sqlite on Node.js 24 and later, else on better-sqlite3, and says so", async () => {
  await withFile(async (filename) => {
    const database = new SqliteDatabase({ filename });
    try {
      assert.equal(database.driver, Number(process.versions.node.split(".")[0]) >= 24 ? "node:sqlite" : "better-sqlite3");
    } finally {
      await database.close();
    }
  });
});

test("better-sqlite3 named on a line where it aborts the process is a DatabaseError that says why", async (t) => {
  if (betterSqlite3Absence() === undefined) {
    t.skip(
      `better-sqlite3 runs on Node.js ${process.versions.node}, so there is no refusal to see here; .ci/run tests it on Node.js 24, where it aborts`,
    );
    return;
  }
  await withFile(async (filename) => {
    assert.throws(
      () => new SqliteDatabase({ filename, driver: "better-sqlite3" }),
      (error: unknown) => error instanceof DatabaseError && /aborts the process on Node\.js 24\./.test(error.message),
    );
  });
});

test("both drivers read and write the same file: what one wrote, the other reads, integers beyond 2^53 exact", async (t) => {
  const absence = nodeSqliteAbsence() ?? betterSqlite3Absence();
  if (absence !== undefined) {
    t.skip(absence);
    return;
  }
  await withFile(async (filename) => {
    const better = new SqliteDatabase({ filename, driver: "better-sqlite3" });
    await using writer = new Context(better);
    await writer.execute("CREATE TABLE T (ID INTEGER PRIMARY KEY, Big INTEGER, Name TEXT)");
    await writer.execute("INSERT INTO T VALUES (1, :big, :name)", { big: 9007199254740993n, name: "written by better-sqlite3" });
    await better.close();
    const node = new SqliteDatabase({ filename, driver: "node:sqlite" });
    try {
      assert.equal(node.driver, "node:sqlite");
      await using reader = new Context(node);
      assert.deepEqual(await reader.query("SELECT Big, Name FROM T WHERE ID = 1"), [[9007199254740993n, "written by better-sqlite3"]]);
      assert.equal(await reader.execute("UPDATE T SET Name = :name", { name: "changed by node:sqlite" }), 1);
    } finally {
      await node.close();
    }
  });
});

test("node:sqlite named on a line without it is a DatabaseError that names the Node.js version needed", async (t) => {
  if (nodeSqliteAbsence() === undefined) {
    t.skip(
      `Node.js ${process.versions.node} has node:sqlite, so there is no refusal to see here; .ci/run tests it on Node.js 20, which lacks it`,
    );
    return;
  }
  await withFile(async (filename) => {
    assert.throws(
      () => new SqliteDatabase({ filename, driver: "node:sqlite" }),
      (error: unknown) =>
        error instanceof DatabaseError && /node:sqlite needs Node\.js 22\.16 or later; this is Node\.js 20\./.test(error.message),
    );
  });
});
