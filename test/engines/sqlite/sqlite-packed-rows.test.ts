import assert from "node:assert/strict";
import { test } from "node:test";
import type { Connection } from "tenon";
import { SqliteDatabase, type SqliteDriverName } from "tenon/sqlite";
import { betterSqlite3Absence, nodeSqliteAbsence } from "../../support/sqlite-drivers.js";

const drivers: readonly { readonly driver: SqliteDriverName; readonly absence: () => string | undefined }[] = [
  { driver: "better-sqlite3", absence: betterSqlite3Absence },
  { driver: "node:sqlite", absence: nodeSqliteAbsence },
];

const columns = `"ID", "Name", "Amount", "Count", "At", "Flag"`;
const plain = `SELECT ${columns} FROM "Rows" WHERE "ID" = ?`;
const packed = `SELECT json_array(${columns}) FROM "Rows" WHERE "ID" = ?`;

/**
 * Rows whose values a packed read could change if it were not exact: text JSON escapes, reals to the last digit, NULLs.
 * No NUL in text: node:sqlite on Node.js 22 reads a text up to its first NUL (Tenon refuses NUL in what it writes).
 */
const rows: readonly unknown[][] = [
  [1, 'quote " backslash \\ tab \t newline \n line separator \u2028 é 😀', 0.1 + 0.2, 9007199254740991, "2024-01-31T09:05:00.000Z", 1],
  [2, "", 5e-324, -7, null, 0],
  [3, null, 1.7976931348623157e308, 0, "not a date", null],
  [4, "[1,2]", -1.5, -9007199254740991, "{}", 1],
];

function open(driver: SqliteDriverName): { database: SqliteDatabase; connection: Connection } {
  const database = new SqliteDatabase({ filename: ":memory:", driver });
  database.exec(`CREATE TABLE "Rows" ("ID" INTEGER PRIMARY KEY, "Name" TEXT, "Amount" REAL, "Count" INTEGER, "At" TEXT, "Flag" INTEGER)`);
  return { database, connection: database.acquireNow() };
}

/** The documented rule (docs/engines.md): reads by key are packed on better-sqlite3 under Node.js 20 only. */
const packsOn = (driver: SqliteDriverName): boolean => driver === "better-sqlite3" && Number(process.versions.node.split(".")[0]) < 22;

for (const { driver, absence } of drivers) {
  test(`on ${driver}, a row read by key packed as JSON is the row read plain, value for value (packed on Node.js 20 only)`, async (t) => {
    const why = absence();
    if (why !== undefined) {
      t.skip(why);
      return;
    }
    const { database, connection } = open(driver);
    try {
      for (const row of rows) await connection.execute(`INSERT INTO "Rows" VALUES (?, ?, ?, ?, ?, ?)`, row);
      for (const row of rows) {
        const id = row[0];
        const read = connection.queryOneNow?.(plain, [id], false);
        assert.deepEqual(connection.queryOneNow?.(plain, [id], false, packed), read);
        assert.deepEqual(read, row);
        // The packed read itself: the row where this line packs, undefined (the plain query answers) where it does not.
        assert.deepEqual(database.packedRow(packed, [id]), packsOn(driver) ? row : undefined);
      }
      assert.equal(connection.queryOneNow?.(plain, [99], false, packed), null);
    } finally {
      await database.close();
    }
  });

  test(`on ${driver}, a row whose text column holds a blob (written by another program) is read plain, blob and all`, async (t) => {
    const why = absence();
    if (why !== undefined) {
      t.skip(why);
      return;
    }
    const { database, connection } = open(driver);
    try {
      // json_array refuses these blobs (neither is JSONB), and the plain query answers. (A blob that is well-formed
      // JSONB, such as the one byte 0x00, would be read as its JSON value: see `SqliteDialect.packRow`.)
      for (const [id, bytes] of [
        [1, []],
        [2, [1, 2, 3]],
      ] as const)
        await connection.execute(`INSERT INTO "Rows" ("ID", "Name") VALUES (?, ?)`, [id, Buffer.from(bytes)]);
      for (const id of [1, 2]) {
        const row = connection.queryOneNow?.(plain, [id], false, packed);
        assert.ok(row?.[1] instanceof Uint8Array, `row ${id}: ${String(row?.[1])}`);
      }
    } finally {
      await database.close();
    }
  });
}
