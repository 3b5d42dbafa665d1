import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Context, Filter, ReadOnlyEntityError } from "tenon";
import { ActiveCompany, Company, Employee, EmployeeDirectory } from "../fixtures.js";
import type { EngineHarness, TestDatabase } from "../harness.js";
import { createSchema } from "../schema.js";

/** Join entities (read-only) and the fixed WHERE clause. */
export function joinsSuite(harness: EngineHarness): void {
  describe(`${harness.name}: joins and fixed where clauses`, () => {
    let db: TestDatabase;
    let acme: Company;
    let closed: Company;
    before(async () => {
      db = await harness.open();
      await createSchema(harness, db);
      await using context = new Context(db.database);
      acme = await context.createEntity(Company);
      acme.name = "Acme";
      await context.insert(acme);
      closed = await context.createEntity(Company);
      closed.name = "Closed Ltd";
      closed.active = false;
      await context.insert(closed);
      for (const [last, company] of [
        ["Zeta", acme],
        ["Alpha", acme],
        ["Mid", closed],
      ] as const) {
        const employee = await context.createEntity(Employee);
        employee.firstName = "F";
        employee.lastName = last;
        employee.company.id = company.id;
        await context.insert(employee);
      }
      const orphan = await context.createEntity(Employee);
      orphan.firstName = "No";
      orphan.lastName = "Company";
      await context.insert(orphan);
    });
    after(async () => db.close());

    it("a join entity reads columns of the joined table in one select", async () => {
      await using context = new Context(db.database);
      const rows = await context.selectAll(EmployeeDirectory);
      const byName = new Map(rows.map((r) => [r.lastName, r.companyName]));
      assert.equal(byName.get("Zeta"), "Acme");
      assert.equal(byName.get("Mid"), "Closed Ltd");
      assert.equal(byName.has("Company"), false, "an inner join drops the employee without a company");
    });

    it("a join entity can be filtered and ordered on a joined column", async () => {
      await using context = new Context(db.database);
      const { EntityMapping } = await import("tenon");
      const mapping = EntityMapping.of(EmployeeDirectory);
      const filter = new Filter();
      filter.add({ kind: "compare", column: mapping.column("companyName")!, operator: "=", value: "Acme" });
      filter.orderBy.push({ column: mapping.column("lastName")!, direction: "ASC" });
      assert.deepEqual(
        (await context.select(EmployeeDirectory, filter)).map((r) => r.lastName),
        ["Alpha", "Zeta"],
      );
    });

    it("a join entity is read-only: insert, update and delete raise ReadOnlyEntityError naming it", async () => {
      await using context = new Context(db.database);
      const [row] = await context.selectAll(EmployeeDirectory);
      const refused = (error: unknown): boolean => error instanceof ReadOnlyEntityError && error.entity === "EmployeeDirectory";
      await assert.rejects(context.insert(new EmployeeDirectory()), refused);
      await assert.rejects(context.update(row), refused);
      await assert.rejects(context.delete(row), refused);
    });

    it("join entities bypass the identity map", async () => {
      await using context = new Context(db.database);
      const first = (await context.selectAll(EmployeeDirectory))[0];
      const again = await context.get(EmployeeDirectory, first.id);
      assert.notEqual(again, first);
      assert.equal(again.id, first.id);
    });

    it("the fixed where clause with its constant parameter applies to every query of the entity", async () => {
      await using context = new Context(db.database);
      const names = (await context.selectAll(ActiveCompany)).map((c) => c.name);
      assert.ok(names.includes("Acme"));
      assert.ok(!names.includes("Closed Ltd"));
      assert.equal(await context.tryGet(ActiveCompany, closed.id), null);
      assert.equal((await context.get(ActiveCompany, acme.id)).name, "Acme");
      assert.equal(await context.selectCount(ActiveCompany), names.length);
    });
  });
}
