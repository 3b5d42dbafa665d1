// The demo's SQLite database of an earlier Tenon held money as NUMERIC amounts; Tenon now stores a
// decimal(18, 2) as cents (docs/engines.md), so the demo converts such a database once when it starts.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { openDirectSqlite } from "../support/direct-sqlite.js";
import { Context } from "tenon";
import { SqliteDatabase } from "tenon/sqlite";
import { Company, Order } from "../../examples/demo/entities.js";
import { ensureDemoSchema } from "../../examples/demo/schema.js";

test("a demo database whose money is NUMERIC is converted to cents once, and reads the same amounts (and gets regions and creators)", async () => {
  const directory = mkdtempSync(join(tmpdir(), "tenon-demo-money-"));
  const file = join(directory, "demo.sqlite");
  try {
    const old = openDirectSqlite(file);
    old.exec(`CREATE TABLE Companies (ID INTEGER NOT NULL PRIMARY KEY, Name TEXT NOT NULL, Email TEXT, VatNumber TEXT,
      CreditLimit NUMERIC, CreatedAt TEXT, CreatedBy TEXT, UpdatedAt TEXT, UpdatedBy TEXT, DeletedAt TEXT, DeletedBy TEXT,
      VersionID INTEGER NOT NULL);
      CREATE TABLE Employees (ID INTEGER NOT NULL PRIMARY KEY, Salary NUMERIC);
      CREATE TABLE Orders (ID INTEGER NOT NULL PRIMARY KEY, Number TEXT NOT NULL, CompanyID INTEGER, Total NUMERIC NOT NULL,
      VersionID INTEGER NOT NULL);
      CREATE TABLE OrderLines (ID INTEGER NOT NULL PRIMARY KEY, Price NUMERIC);
      INSERT INTO Companies (ID, Name, CreditLimit, VersionID) VALUES (1, 'Acme', '2500.5', 0), (2, 'Nil', NULL, 0),
        (3, 'Globex Industries', NULL, 0);
      INSERT INTO Orders VALUES (1, 'SO-1', 1, '31.74', 0), (2, 'SO-2', 1, '12', 0);`);
    old.close();
    for (let start = 0; start < 2; start++) {
      const database = new SqliteDatabase({ filename: file, name: `${file}#${start}` });
      try {
        await using context = new Context(database);
        // Administration: the demo's entities are scoped by tenant, and these old rows belong to none.
        context.unscoped = true;
        assert.equal(await ensureDemoSchema(context, false), false);
        assert.equal((await context.get(Company, 1)).creditLimit, "2500.50");
        assert.equal((await context.get(Company, 2)).creditLimit, null);
        assert.equal((await context.get(Order, 1)).total, "31.74");
        assert.equal((await context.get(Order, 2)).total, "12.00", `start ${start + 1}: converted once only`);
        assert.equal((await context.get(Company, 1)).tenantId, "north", "the rows of a database without tenants are the seed's tenant's");
        // Nor regions, nor orders' creators: the seed's regions (US for the seed's US companies), the seed as creator.
        assert.deepEqual([(await context.get(Company, 1)).region, (await context.get(Company, 3)).region], ["EU", "US"]);
        assert.equal((await context.get(Order, 1)).createdBy, "seed");
      } finally {
        await database.close();
      }
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
