import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DatabaseError } from "tenon";
import { SqliteDatabase } from "tenon/sqlite";

describe("SQLite errors", () => {
  it("a statement that fails to prepare reports SQLite's message once, on every path", async () => {
    const database = new SqliteDatabase({ filename: ":memory:" });
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
});
