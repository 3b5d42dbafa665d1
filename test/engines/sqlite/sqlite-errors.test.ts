import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { DatabaseError, TransientDatabaseError, UniqueViolationError } from "tenon";
import { SqliteDatabase, type SqliteDriverName } from "tenon/sqlite";
import { betterSqlite3Absence, nodeSqliteAbsence } from "../../support/sqlite-drivers.js";

const drivers: SqliteDriverName[] = [
  ...(betterSqlite3Absence() === undefined ? (["better-sqlite3"] as const) : []),
  ...(nodeSqliteAbsence() === undefined ? (["node:sqlite"] as const) : []),
];

for (const driver of drivers) {
  describe(`SQLite errors through ${driver}`, () => {
    it("a statement that fails to prepare reports SQLite's message once, on every path", async () => {
      const database = new SqliteDatabase({ filename: ":memory:", driver });
      try {
        database.exec("CREATE TABLE Things (ID INTEGER NOT NULL PRIMARY KEY)");
        const connection = await database.acquire();
        const failures = [
          () => connection.execute("INSERT INTO Things (ID, Missing) VALUES (?, ?)", [1, 2]),
          () => connection.query("SELECT Missing FROM Things", []),
          async () => connection.queryNow?.("SELECT Missing FROM Things", []),
        ];
        for (const fail of failures) {
          await assert.rejects(fail(), (error: unknown) => {
            assert.ok(error instanceof DatabaseError);
            assert.match(error.message, /^SQLite: (table Things has )?no (such )?column/);
            assert.doesNotMatch(error.message, /SQLite: SQLite:/);
            return true;
          });
        }
        connection.release();
      } finally {
        await database.close();
      }
    });

    it("a duplicate primary or unique key is a UniqueViolationError that tells which", async () => {
      const database = new SqliteDatabase({ filename: ":memory:", driver });
      try {
        database.exec("CREATE TABLE Things (ID INTEGER NOT NULL PRIMARY KEY, Code TEXT UNIQUE); INSERT INTO Things VALUES (1, 'a')");
        const connection = await database.acquire();
        for (const [sql, primary] of [
          ["INSERT INTO Things VALUES (1, 'b')", true],
          ["INSERT INTO Things VALUES (2, 'a')", false],
        ] as const) {
          await assert.rejects(connection.execute(sql, []), (error: unknown) => {
            assert.ok(error instanceof UniqueViolationError, String(error));
            assert.equal(error.onPrimaryKey, primary);
            return true;
          });
        }
        connection.release();
      } finally {
        await database.close();
      }
    });

    it("a file another connection keeps locked beyond the busy timeout is a transient busy error, and nothing is written", async () => {
      const directory = mkdtempSync(join(tmpdir(), "tenon-busy-"));
      const filename = join(directory, "busy.sqlite");
      const holder = new SqliteDatabase({ filename, driver });
      const other = new SqliteDatabase({ filename, name: `${filename}#other`, driver, busyTimeout: 50 });
      try {
        holder.exec("CREATE TABLE Things (ID INTEGER NOT NULL PRIMARY KEY)");
        const holding = await holder.acquire();
        await holding.begin();
        const waiting = await other.acquire();
        await assert.rejects(waiting.execute("INSERT INTO Things VALUES (1)", []), (error: unknown) => {
          assert.ok(error instanceof TransientDatabaseError, String(error));
          assert.equal(error.kind, "busy");
          return true;
        });
        await holding.rollback();
        holding.release();
        assert.deepEqual(await waiting.query("SELECT COUNT(*) FROM Things", []), [[0n]]);
        waiting.release();
      } finally {
        await other.close();
        await holder.close();
        rmSync(directory, { recursive: true, force: true });
      }
    });
  });
}
