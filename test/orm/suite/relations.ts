import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Context, RelationConstraintError, TenonError } from "tenon";
import { Company, insertCompany, Employee, Order, OrderLine } from "../fixtures.js";
import type { EngineHarness, TestDatabase } from "../harness.js";
import { createSchema } from "../schema.js";

/** Relations (cascade or a refused delete), lazy references, detail lists and the identity map. */
export function relationsSuite(harness: EngineHarness): void {
  describe(`${harness.name}: relations, lazy loading and the identity map`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await harness.open();
      await createSchema(harness, db);
    });
    after(async () => db.close());

    async function orderWithLines(context: Context, lines: number): Promise<Order> {
      const order = await context.createEntity(Order);
      order.number = `O-${order.id}`;
      await context.insert(order);
      for (let i = 0; i < lines; i++) {
        const line = await context.createEntity(OrderLine);
        line.order.id = order.id;
        line.product = `P${i}`;
        line.price = "1.50";
        await context.insert(line);
      }
      return order;
    }

    it("deleting a parent with a cascading relation deletes its children first", async () => {
      await using context = new Context(db.database);
      const order = await orderWithLines(context, 3);
      const other = await orderWithLines(context, 2);
      await context.delete(order);
      assert.equal((await db.rows(`SELECT ID FROM OrderLines WHERE OrderID = ${order.id}`)).length, 0);
      assert.equal((await db.rows(`SELECT ID FROM Orders WHERE ID = ${order.id}`)).length, 0);
      assert.equal((await db.rows(`SELECT ID FROM OrderLines WHERE OrderID = ${other.id}`)).length, 2, "other orders keep their lines");
    });

    it("deleting a parent with a blocking relation and children raises TenonError and deletes nothing", async () => {
      await using context = new Context(db.database);
      const company = await insertCompany(context, "Employer");
      const employee = await context.createEntity(Employee);
      employee.firstName = "E";
      employee.lastName = "Mployee";
      employee.company.id = company.id;
      await context.insert(employee);
      await assert.rejects(context.delete(company), (error: unknown) => {
        assert.ok(error instanceof RelationConstraintError && error instanceof TenonError);
        assert.equal(error.childTable, "Employees");
        assert.equal(error.children, 1);
        return true;
      });
      const rows = await db.rows(`SELECT DeletedAt FROM Companies WHERE ID = ${company.id}`);
      assert.equal(Object.values(rows[0])[0], null);
      assert.equal((await db.rows(`SELECT ID FROM Employees WHERE ID = ${employee.id}`)).length, 1);
    });

    it("a blocking relation without children lets the delete through", async () => {
      await using context = new Context(db.database);
      const company = await insertCompany(context, "Lonely");
      await context.delete(company);
      assert.notEqual(Object.values((await db.rows(`SELECT DeletedAt FROM Companies WHERE ID = ${company.id}`))[0])[0], null);
    });

    it("a lazy reference loads the referenced entity on first access, once", async () => {
      await using writer = new Context(db.database);
      const company = await insertCompany(writer, "Referenced");
      const employee = await writer.createEntity(Employee);
      employee.firstName = "L";
      employee.lastName = "Azy";
      employee.company.id = company.id;
      await writer.insert(employee);
      await using reader = new Context(db.database);
      const read = await reader.get(Employee, employee.id);
      assert.equal(read.company.id, company.id);
      assert.equal(read.company.value, undefined, "not loaded before access");
      const referenced = await read.company.get();
      assert.equal(referenced?.name, "Referenced");
      assert.equal(await read.company.get(), referenced);
      assert.equal(referenced, await reader.get(Company, company.id), "the identity map gives the same object");
    });

    it("a detail list loads the children matched by the child foreign key", async () => {
      await using writer = new Context(db.database);
      const order = await orderWithLines(writer, 4);
      await orderWithLines(writer, 1);
      await using reader = new Context(db.database);
      const read = await reader.get(Order, order.id);
      assert.equal(read.lines.isLoaded, false);
      const lines = await read.lines.load();
      assert.deepEqual(
        lines.map((l) => l.product),
        ["P0", "P1", "P2", "P3"],
      );
      assert.ok(lines.every((l) => l.order.id === order.id));
    });

    it("a reload of the master clears its detail list, which reloads on next access", async () => {
      await using context = new Context(db.database);
      const order = await orderWithLines(context, 1);
      const read = await context.get(Order, order.id);
      assert.equal((await read.lines.load()).length, 1);
      await db.exec(
        `INSERT INTO OrderLines (ID, OrderID, Product, Quantity, Price, VersionID) VALUES (${90000 + order.id}, ${order.id}, 'Late', 1, '2.00', 0)`,
      );
      await context.refresh(read);
      assert.equal(read.lines.isLoaded, false);
      assert.equal((await read.lines.load()).length, 2);
    });

    it("the same id gives the same object within one context and different objects across contexts", async () => {
      await using writer = new Context(db.database);
      const company = await insertCompany(writer, "Identity");
      await using a = new Context(db.database);
      const first = await a.get(Company, company.id);
      const second = await a.get(Company, company.id);
      assert.equal(first, second);
      const fromSelect = (await a.selectAll(Company)).find((c) => c.id === company.id);
      assert.equal(fromSelect, first);
      await using b = new Context(db.database);
      assert.notEqual(await b.get(Company, company.id), first);
    });
  });
}
