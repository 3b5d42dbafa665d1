import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ConcurrentUpdateError, Context, ContextDisposedError, EntityNotFoundError, Filter, MappingError } from "tenon";
import { Company, Employee, insertCompany } from "../fixtures.js";
import type { EngineHarness, TestDatabase } from "../harness.js";
import { createSchema } from "../schema.js";

/** Insert, read, update with optimistic locking, and delete. */
export function crudSuite(harness: EngineHarness): void {
  describe(`${harness.name}: reading and writing entities`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await harness.open();
      await createSchema(harness, db);
    });
    after(async () => db.close());

    it("an inserted entity is in the table with version 0 and its creation pair", async () => {
      await using context = new Context(db.database);
      context.onGetCurrentUser = () => "alice";
      const company = await insertCompany(context, "Acme");
      const rows = await db.rows("SELECT * FROM Companies WHERE ID = " + company.id);
      assert.equal(rows.length, 1);
      const row = lower(rows[0]);
      assert.equal(row.name, "Acme");
      assert.equal(Number(row.versionid), 0);
      assert.equal(row.createdby, "alice");
      assert.notEqual(row.createdat, null);
      assert.equal(row.updatedat, null);
      assert.equal(row.deletedat, null);
      assert.equal(company.versionId, 0);
    });

    it("get answers the row and tryGet answers null for an absent id", async () => {
      await using writer = new Context(db.database);
      const company = await insertCompany(writer, "Read Me");
      await using reader = new Context(db.database);
      const read = await reader.get(Company, company.id);
      assert.equal(read.name, "Read Me");
      assert.equal(read.active, true);
      assert.equal(await reader.tryGet(Company, 987654), null);
      await assert.rejects(reader.get(Company, 987654), (error: unknown) => error instanceof EntityNotFoundError && error.id === 987654);
      // it describes the caller's request, not a fault: built without a stack trace (its stack is its first line)
      await assert.rejects(
        reader.get(Company, 987654),
        (error: unknown) => error instanceof Error && error.stack === `EntityNotFoundError: ${error.message}`,
      );
    });

    it("a read that cannot run answers a rejected promise, never a synchronous throw, and a disposed session reads nothing", async () => {
      class NotAnEntity {}
      const context = new Context(db.database);
      const unmapped = context.tryGet(NotAnEntity, 1);
      assert.ok(unmapped instanceof Promise, "the mistake arrives as a rejection");
      await assert.rejects(unmapped, MappingError);
      const company = await insertCompany(context, "Before Dispose");
      await context.dispose();
      await assert.rejects(context.tryGet(Company, company.id + 1), ContextDisposedError);
      await assert.rejects(context.select(Company, new Filter()), ContextDisposedError);
      await using again = new Context(db.database);
      assert.equal((await again.get(Company, company.id)).name, "Before Dispose", "the connection went back and serves the next session");
    });

    it("insert draws the key from the sequence when the entity has none", async () => {
      await using context = new Context(db.database);
      const company = new Company();
      company.name = "No Key";
      await context.insert(company);
      assert.ok(company.id > 0);
      const rows = await db.rows("SELECT Name FROM Companies WHERE ID = " + company.id);
      assert.equal(lower(rows[0]).name, "No Key");
    });

    it("an update writes the new values, increments the version and writes only the updated pair", async () => {
      await using first = new Context(db.database);
      first.onGetCurrentUser = () => "creator";
      const company = await insertCompany(first, "Before");
      const createdAt = company.createdAt;
      await using second = new Context(db.database);
      second.onGetCurrentUser = () => "updater";
      const loaded = await second.get(Company, company.id);
      loaded.name = "After";
      loaded.createdBy = "forged";
      loaded.createdAt = new Date(0);
      loaded.deletedAt = new Date(0);
      await second.update(loaded);
      assert.equal(loaded.versionId, 1);
      const row = lower((await db.rows("SELECT * FROM Companies WHERE ID = " + company.id))[0]);
      assert.equal(row.name, "After");
      assert.equal(Number(row.versionid), 1);
      assert.equal(row.createdby, "creator");
      assert.equal(row.updatedby, "updater");
      assert.notEqual(row.updatedat, null);
      assert.equal(row.deletedat, null);
      assert.ok(createdAt !== null);
    });

    it("an update with a stale version raises ConcurrentUpdateError and changes nothing", async () => {
      await using context = new Context(db.database);
      const company = await insertCompany(context, "Contested");
      await using a = new Context(db.database);
      await using b = new Context(db.database);
      const copyA = await a.get(Company, company.id);
      const copyB = await b.get(Company, company.id);
      copyA.name = "A wins";
      await a.update(copyA);
      copyB.name = "B loses";
      await assert.rejects(
        b.update(copyB),
        (error: unknown) => error instanceof ConcurrentUpdateError && error.stack === `ConcurrentUpdateError: ${error.message}`,
      );
      const row = lower((await db.rows("SELECT * FROM Companies WHERE ID = " + company.id))[0]);
      assert.equal(row.name, "A wins");
      assert.equal(Number(row.versionid), 1);
    });

    it("a hard delete removes the row, and a stale version is refused", async () => {
      await using context = new Context(db.database);
      const employee = await context.createEntity(Employee);
      employee.firstName = "Ann";
      employee.lastName = "Lee";
      await context.insert(employee);
      await using other = new Context(db.database);
      const copy = await other.get(Employee, employee.id);
      copy.versionId = 7;
      await assert.rejects(other.delete(copy), ConcurrentUpdateError);
      assert.equal((await db.rows("SELECT ID FROM Employees WHERE ID = " + employee.id)).length, 1);
      await context.delete(employee);
      assert.equal((await db.rows("SELECT ID FROM Employees WHERE ID = " + employee.id)).length, 0);
    });

    it("a private mapped field is written and read through the decorator's access", async () => {
      await using context = new Context(db.database);
      const employee = await context.createEntity(Employee);
      employee.firstName = "Pat";
      employee.lastName = "Private";
      employee.notes = "secret notes";
      await context.insert(employee);
      assert.equal(lower((await db.rows("SELECT Notes FROM Employees WHERE ID = " + employee.id))[0]).notes, "secret notes");
      await using reader = new Context(db.database);
      assert.equal((await reader.get(Employee, employee.id)).notes, "secret notes");
    });

    it("selectCount counts the rows a filter matches and select pages them in order", async () => {
      await using context = new Context(db.database);
      for (const name of ["Page C", "Page A", "Page B"]) await insertCompany(context, name);
      const filter = new Filter().addWhere("Name LIKE :prefix", { prefix: "Page %" });
      assert.equal(await context.selectCount(Company, filter), 3);
      filter.orderBy.push({ column: (await import("tenon")).EntityMapping.of(Company).column("name")!, direction: "ASC" });
      filter.offset = 1;
      filter.limit = 1;
      const page = await context.select(Company, filter);
      assert.deepEqual(
        page.map((c) => c.name),
        ["Page B"],
      );
      assert.equal(await context.selectCount(Company, filter), 3);
    });
  });
}

/** Lower-cases the keys of a row read directly from an engine (engines differ in the case they report). */
export function lower(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k.toLowerCase(), v]));
}
