import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ConcurrentUpdateError, Context, Filter } from "tenon";
import { Company, CompanyRow } from "../fixtures.js";
import type { EngineHarness, TestDatabase } from "../harness.js";
import { createSchema } from "../schema.js";
import { lower } from "./crud.js";

/** Soft delete, undelete and the change-tracking columns (each pair written only by its own operation). */
export function softDeleteSuite(harness: EngineHarness): void {
  describe(`${harness.name}: soft delete and change tracking`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await harness.open();
      await createSchema(harness, db);
    });
    after(async () => db.close());

    async function inserted(name: string, user = "creator"): Promise<Company> {
      await using context = new Context(db.database);
      context.onGetCurrentUser = () => user;
      const company = await context.createEntity(Company);
      company.name = name;
      await context.insert(company);
      return company;
    }

    it("deleting an entity with @DeletedAt keeps the row and sets the deletion pair", async () => {
      const company = await inserted("Soft");
      await using context = new Context(db.database);
      context.onGetCurrentUser = () => "remover";
      await context.delete(await context.get(Company, company.id));
      const rows = (await db.rows("SELECT * FROM Companies WHERE ID = " + company.id)).map(lower);
      assert.equal(rows.length, 1);
      assert.notEqual(rows[0].deletedat, null);
      assert.equal(rows[0].deletedby, "remover");
      assert.equal(rows[0].updatedat, null, "a delete does not write the updated pair");
    });

    it("a soft-deleted row is invisible to get, select and count through the entity", async () => {
      const company = await inserted("Hidden");
      await using context = new Context(db.database);
      await context.delete(await context.get(Company, company.id));
      await using reader = new Context(db.database);
      assert.equal(await reader.tryGet(Company, company.id), null);
      const filter = new Filter().addWhere("Name = :name", { name: "Hidden" });
      assert.equal((await reader.select(Company, filter)).length, 0);
      assert.equal(await reader.selectCount(Company, filter), 0);
      const withDeleted = await reader.tryGet(Company, company.id, { includeDeleted: true });
      assert.equal(withDeleted?.name, "Hidden");
    });

    it("a soft-deleted row cannot be updated or deleted again through the entity", async () => {
      const company = await inserted("Frozen");
      await using context = new Context(db.database);
      const loaded = await context.get(Company, company.id);
      await context.delete(loaded);
      await using other = new Context(db.database);
      const stale = await other.get(Company, company.id, { includeDeleted: true });
      stale.name = "Changed";
      await assert.rejects(other.update(stale), ConcurrentUpdateError);
      await assert.rejects(other.delete(stale), ConcurrentUpdateError);
      const row = lower((await db.rows("SELECT * FROM Companies WHERE ID = " + company.id))[0]);
      assert.equal(row.name, "Frozen");
    });

    it("a second class on the same table without @DeletedAt still reaches the soft-deleted row", async () => {
      const company = await inserted("Reachable");
      await using context = new Context(db.database);
      await context.delete(await context.get(Company, company.id));
      await using raw = new Context(db.database);
      const row = await raw.get(CompanyRow, company.id);
      assert.equal(row.name, "Reachable");
      assert.ok(row.deletedAt instanceof Date);
      row.name = "Renamed underneath";
      await raw.update(row);
      assert.equal(lower((await db.rows("SELECT Name FROM Companies WHERE ID = " + company.id))[0]).name, "Renamed underneath");
    });

    it("undelete brings the row back, clears the deletion pair and writes the updated pair", async () => {
      const company = await inserted("Lazarus");
      await using context = new Context(db.database);
      await context.delete(await context.get(Company, company.id));
      await using restorer = new Context(db.database);
      restorer.onGetCurrentUser = () => "restorer";
      const dead = await restorer.get(Company, company.id, { includeDeleted: true });
      await restorer.undelete(dead);
      const row = lower((await db.rows("SELECT * FROM Companies WHERE ID = " + company.id))[0]);
      assert.equal(row.deletedat, null);
      assert.equal(row.updatedby, "restorer");
      assert.notEqual(row.updatedat, null);
      await using reader = new Context(db.database);
      assert.equal((await reader.get(Company, company.id)).name, "Lazarus");
    });

    it("setting the creation and deletion pairs by hand on an existing entity has no effect", async () => {
      const company = await inserted("Tamper", "original");
      await using context = new Context(db.database);
      context.onGetCurrentUser = () => "editor";
      const loaded = await context.get(Company, company.id);
      loaded.createdBy = "mallory";
      loaded.deletedBy = "mallory";
      loaded.deletedAt = new Date();
      await context.update(loaded);
      const row = lower((await db.rows("SELECT * FROM Companies WHERE ID = " + company.id))[0]);
      assert.equal(row.createdby, "original");
      assert.equal(row.deletedby, null);
      assert.equal(row.deletedat, null);
      assert.equal(row.updatedby, "editor");
    });
  });
}
