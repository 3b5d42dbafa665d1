import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Context, FilterBuilder, TenonError } from "tenon";
import { Company, Gadget, Order } from "../fixtures.js";
import type { EngineHarness, TestDatabase } from "../harness.js";
import { createSchema } from "../schema.js";

/** `Context.aggregate` (the typed API of the aggregate route) and `Context.countRows` (count modes), the same on every engine. */
export function aggregatesSuite(harness: EngineHarness): void {
  describe(`${harness.name}: Context.aggregate and Context.countRows`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await harness.open();
      await createSchema(harness, db);
      await using context = new Context(db.database);
      const companies: Company[] = [];
      for (const name of ["Acme", "Globex", "Gone"]) {
        const company = await context.createEntity(Company);
        company.name = name;
        await context.insert(company);
        companies.push(company);
      }
      // Orders: Acme 10.50 + 20.25 + 0.01, Globex 99.99, none 5.00, and one of the soft-deleted "Gone".
      const orders: [Company | null, string][] = [
        [companies[0], "10.50"],
        [companies[0], "20.25"],
        [companies[0], "0.01"],
        [companies[1], "99.99"],
        [null, "5.00"],
        [companies[2], "1.00"],
      ];
      for (const [index, [company, total]] of orders.entries()) {
        const order = await context.createEntity(Order);
        order.number = `A-${index}`;
        order.total = total;
        if (company !== null) order.company.id = company.id;
        await context.insert(order);
      }
      await context.delete(companies[2]);
      const gadgets: [bigint | null, string | null, number | null, string | null][] = [
        [9_007_199_254_740_993n, "1.0001", 0.5, "2024-03-04T05:06:07.089Z"],
        [9_007_199_254_740_993n, "2.0002", 0.25, "2024-03-10T23:00:00.000Z"],
        [null, null, null, null],
      ];
      for (const [big, amount, ratio, at] of gadgets) {
        const gadget = await context.createEntity(Gadget);
        gadget.big = big;
        gadget.amount = amount;
        gadget.ratio = ratio;
        gadget.at = at === null ? null : new Date(at);
        await context.insert(gadget);
      }
    });
    after(async () => db.close());

    it("groups by a referenced entity's column: a soft-deleted or empty reference is the NULL group", async () => {
      await using context = new Context(db.database);
      const result = await context.aggregate(Order, {
        groupBy: [{ reference: "company", property: "name" }],
        metrics: [
          { fn: "count", as: "orders" },
          { fn: "sum", property: "total", as: "total" },
          { fn: "avg", property: "total", as: "mean" },
          { fn: "max", property: "total", as: "largest" },
        ],
        orderBy: [{ by: "total", direction: "DESC" }],
      });
      assert.deepEqual(result.rows, [
        { "company.name": "Globex", orders: 1, total: "99.99", mean: "99.990000", largest: "99.99" },
        { "company.name": "Acme", orders: 3, total: "30.76", mean: "10.253333", largest: "20.25" },
        { "company.name": null, orders: 2, total: "6.00", mean: "3.000000", largest: "5.00" },
      ]);
      assert.equal(result.groupCount, 3);
      assert.equal(result.next, undefined);
    });

    it("pages over groups with limit and after, and filters groups with having", async () => {
      await using context = new Context(db.database);
      const spec = {
        where: new FilterBuilder(Order).where("total").greater("0.00").build(),
        groupBy: ["company" as const],
        metrics: [{ fn: "count" as const, as: "n" }],
        limit: 1,
      };
      const seen: unknown[] = [];
      let after: readonly unknown[] | undefined;
      for (let page = 0; page < 5; page++) {
        const result = await context.aggregate(Order, { ...spec, after });
        seen.push(...result.rows.map((row) => row.company));
        after = result.next;
        if (after === undefined) break;
      }
      // Four groups: no company, and the ids of Acme, Globex and the soft-deleted Gone (its orders still name it).
      assert.equal(seen.length, 4);
      assert.equal(seen[0], null, "NULL is the lowest group");
      const ids = seen.slice(1) as number[];
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
      );
      const having = await context.aggregate(Order, { ...spec, limit: undefined, having: [{ metric: "n", condition: ">=", value: 2 }] });
      assert.deepEqual(
        having.rows.map((row) => row.n),
        [3],
      );
    });

    it("int64 sums stay exact bigints, decimal sums exact text, float averages doubles, dates truncated in UTC", async () => {
      await using context = new Context(db.database);
      const result = await context.aggregate(Gadget, {
        groupBy: [{ property: "at", truncate: "week", as: "week" }],
        metrics: [
          { fn: "sum", property: "big", as: "big" },
          { fn: "sum", property: "amount", as: "amount" },
          { fn: "avg", property: "ratio", as: "ratio" },
          { fn: "min", property: "at", as: "first" },
        ],
      });
      assert.deepEqual(result.rows, [
        { week: null, big: null, amount: null, ratio: null, first: null },
        {
          week: new Date("2024-03-04T00:00:00.000Z"),
          big: 18_014_398_509_481_986n,
          amount: "3.0003",
          ratio: 0.375,
          first: new Date("2024-03-04T05:06:07.089Z"),
        },
      ]);
    });

    it("a property, function or name that does not fit throws TenonError before anything is read", async () => {
      await using context = new Context(db.database);
      const wrong = [
        { metrics: [{ fn: "sum" as const, property: "number", as: "s" }] },
        { metrics: [{ fn: "count" as const, property: "nothing", as: "s" }] },
        { metrics: [{ fn: "sum" as const, as: "s" }] },
        { metrics: [] },
        { groupBy: [{ property: "number", truncate: "day" as const }], metrics: [{ fn: "count" as const, as: "n" }] },
        { groupBy: ["number"], metrics: [{ fn: "count" as const, as: "number" }] },
        { groupBy: [{ reference: "number", property: "name" }], metrics: [{ fn: "count" as const, as: "n" }] },
        { metrics: [{ fn: "count" as const, as: "n" }], orderBy: [{ by: "m" }] },
        { metrics: [{ fn: "count" as const, as: "n" }], having: [{ metric: "n", condition: "IN" as const, value: 3 }] },
      ];
      for (const spec of wrong) await assert.rejects(context.aggregate(Order, spec), TenonError, JSON.stringify(spec));
    });

    it("countRows counts exactly, up to a ceiling, or from the engine's statistics", async () => {
      await using context = new Context(db.database);
      const all = new FilterBuilder(Order).build();
      assert.deepEqual(await context.countRows(Order, all, "exact"), { count: 6, kind: "exact" });
      assert.deepEqual(await context.countRows(Order, all, { atMost: 4 }), { count: 4, kind: "atLeast" });
      assert.deepEqual(await context.countRows(Order, all, { atMost: 6 }), { count: 6, kind: "exact" });
      assert.deepEqual(
        await context.countRows(Company, undefined, { atMost: 6 }),
        { count: 2, kind: "exact" },
        "soft-deleted rows are not counted",
      );
      const estimated = await context.countRows(Order, undefined, "estimated");
      if (harness.name.startsWith("SQLite"))
        assert.deepEqual(estimated, { count: 6, kind: "exact" }, "SQLite keeps no statistics: it counts");
      else {
        assert.equal(estimated.kind, "estimated");
        assert.ok(Number.isSafeInteger(estimated.count) && estimated.count >= 0, String(estimated.count));
      }
    });
  });
}
