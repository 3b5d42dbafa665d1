import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ConcurrentUpdateError, Context, UniqueViolationError } from "tenon";
import { OrderLine } from "../fixtures.js";
import type { EngineHarness, TestDatabase } from "../harness.js";
import { createSchema } from "../schema.js";

/** Many rows of one class in a few statements: Context.insertAll and deleteAll. */
export function batchesSuite(harness: EngineHarness): void {
  describe(`${harness.name}: writing many rows at once`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await harness.open();
      await createSchema(harness, db);
    });
    after(async () => db.close());

    const line = (orderId: number, n: number, id = 0): OrderLine => {
      const created = Object.assign(new OrderLine(), { id, product: `P${n}`, quantity: n + 1, price: "1.50" });
      created.order.id = orderId;
      return created;
    };
    const stored = async (orderId: number): Promise<Record<string, unknown>[]> =>
      db.rows(
        `SELECT ID AS id, Product AS product, Quantity AS quantity, VersionID AS versionid FROM OrderLines WHERE OrderID = ${orderId} ORDER BY ID`,
      );

    it("insertAll writes 2,500 rows with distinct drawn keys, version 0, and deleteAll removes them", async () => {
      await using context = new Context(db.database);
      const lines = Array.from({ length: 2500 }, (_, n) => line(1, n));
      await context.insertAll(lines);
      const rows = await stored(1);
      assert.equal(rows.length, 2500);
      assert.equal(new Set(lines.map((l) => l.id)).size, 2500);
      assert.deepEqual(
        rows.map((row) => Number(row.id)),
        lines.map((l) => l.id).sort((a, b) => a - b),
      );
      assert.ok(rows.every((row) => Number(row.versionid) === 0));
      assert.equal(rows.find((row) => Number(row.id) === lines[7].id)?.product, "P7");
      await context.deleteAll(lines);
      assert.equal((await stored(1)).length, 0);
    });

    it("a key of the batch that a row already has is replaced when drawn and refused when chosen", async () => {
      await using context = new Context(db.database);
      const next = await context.nextId(OrderLine);
      await context.insert(line(9, 0, next + 2));
      const batch = Array.from({ length: 5 }, (_, n) => line(2, n));
      await context.insertAll(batch);
      assert.equal(new Set([...batch.map((l) => l.id), next + 2]).size, 6, batch.map((l) => l.id).join());
      assert.equal((await stored(2)).length, 5);
      const chosen = [line(3, 0, next + 100), line(3, 1, next + 2)];
      await assert.rejects(context.insertAll(chosen), (error: unknown) => error instanceof UniqueViolationError && error.id === next + 2);
      assert.equal((await stored(3)).length, 0, "nothing of the failed batch remains");
    });

    it("deleteAll with one stale version deletes nothing and raises ConcurrentUpdateError", async () => {
      await using context = new Context(db.database);
      const lines = Array.from({ length: 4 }, (_, n) => line(4, n));
      await context.insertAll(lines);
      lines[2].versionId = 7;
      await assert.rejects(context.deleteAll(lines), ConcurrentUpdateError);
      assert.equal((await stored(4)).length, 4);
    });

    it("updateAll writes 450 changed rows in a few statements, raising every version by one", async () => {
      await using context = new Context(db.database);
      const lines = Array.from({ length: 450 }, (_, n) => line(5, n));
      await context.insertAll(lines);
      lines.forEach((l, n) => {
        l.product = `Q${n}`;
        l.quantity = n * 2;
        l.price = n % 2 === 0 ? "2.25" : "7.00";
      });
      await context.updateAll(lines);
      const rows = await stored(5);
      assert.equal(rows.length, 450);
      assert.ok(lines.every((l) => l.versionId === 1));
      assert.ok(rows.every((row) => Number(row.versionid) === 1));
      const byId = new Map(rows.map((row) => [Number(row.id), row]));
      for (const [n, l] of lines.entries()) {
        assert.equal(byId.get(l.id)?.product, `Q${n}`);
        assert.equal(Number(byId.get(l.id)?.quantity), n * 2);
      }
      const prices = await db.rows(`SELECT Price AS price FROM OrderLines WHERE ID = ${lines[3].id}`);
      assert.equal(String(prices[0].price), String(harness.storedDecimal("7.00", 2)));
    });

    it("updateAll with one stale version changes nothing, names that row and tells its position", async () => {
      await using context = new Context(db.database);
      const lines = Array.from({ length: 6 }, (_, n) => line(6, n));
      await context.insertAll(lines);
      for (const l of lines) l.product = "changed";
      lines[4].versionId = 3;
      let position = -1;
      await assert.rejects(
        context.updateAll(lines, (index) => {
          position = index;
        }),
        (error: unknown) => error instanceof ConcurrentUpdateError && error.message.includes(` ${lines[4].id} `),
      );
      assert.equal(position, 4);
      const rows = await stored(6);
      assert.ok(rows.every((row) => row.product !== "changed" && Number(row.versionid) === 0));
    });

    it("deleteAll with one stale version tells the position of that row", async () => {
      await using context = new Context(db.database);
      const lines = Array.from({ length: 5 }, (_, n) => line(7, n));
      await context.insertAll(lines);
      lines[3].versionId = 9;
      let position = -1;
      await assert.rejects(
        context.deleteAll(lines, (index) => {
          position = index;
        }),
        ConcurrentUpdateError,
      );
      assert.equal(position, 3);
      assert.equal((await stored(7)).length, 5);
    });
  });
}
