import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Context, EntityMapping, Filter, type OrderByItem } from "tenon";
import { keysetCondition, keysetOrder } from "../../../src/filter/keyset.js";
import { Company } from "../fixtures.js";
import type { EngineHarness, TestDatabase } from "../harness.js";
import { createSchema } from "../schema.js";

/** NULL ordering and keyset pages (the CRUD reader's `after`), the same on every engine. */
export function keysetSuite(harness: EngineHarness): void {
  describe(`${harness.name}: NULL ordering and keyset pages`, () => {
    let db: TestDatabase;
    const mapping = EntityMapping.of(Company);
    const column = (property: string) => {
      const found = mapping.column(property);
      assert.ok(found !== undefined);
      return found;
    };
    before(async () => {
      db = await harness.open();
      await createSchema(harness, db);
      await using context = new Context(db.database);
      for (let n = 0; n < 13; n++) {
        const company = await context.createEntity(Company);
        company.name = `Keyset ${n % 4}`;
        company.creditLimit = n % 3 === 0 ? null : (n % 5) * 10;
        company.email = n % 4 === 0 ? null : `k${n % 2}@example.com`;
        company.active = n % 2 === 0;
        await context.insert(company);
      }
    });
    after(async () => db.close());

    const filterOf = (orderBy: readonly OrderByItem[]): Filter => {
      const filter = new Filter().addWhere("Name LIKE :prefix", { prefix: "Keyset%" });
      filter.orderBy.push(...orderBy);
      return filter;
    };

    const orders: [string, OrderByItem[]][] = [
      ["creditLimit ASC", [{ column: column("creditLimit"), direction: "ASC" }]],
      ["creditLimit DESC", [{ column: column("creditLimit"), direction: "DESC" }]],
      [
        "email DESC, creditLimit ASC",
        [
          { column: column("email"), direction: "DESC" },
          { column: column("creditLimit"), direction: "ASC" },
        ],
      ],
      [
        "active ASC, name DESC",
        [
          { column: column("active"), direction: "ASC" },
          { column: column("name"), direction: "DESC" },
        ],
      ],
    ];

    it("NULL is the lowest value: first in ascending order, last in descending order", async () => {
      await using context = new Context(db.database);
      const up = (await context.select(Company, filterOf(orders[0][1]))).map((c) => c.creditLimit);
      assert.equal(up[0], null);
      assert.deepEqual(up.slice(0, 5), [null, null, null, null, null], up.join());
      assert.ok(up.slice(5).every((value) => value !== null));
      const down = (await context.select(Company, filterOf(orders[1][1]))).map((c) => c.creditLimit);
      assert.deepEqual(down.slice(-5), [null, null, null, null, null], down.join());
    });

    for (const [name, orderBy] of orders) {
      it(`pages read after the last row of the page before walk every row once, in order (${name}, the key last)`, async () => {
        await using context = new Context(db.database);
        const all = (await context.select(Company, filterOf(orderBy))).map((c) => c.id);
        const order = keysetOrder(mapping.primaryKey, orderBy);
        const walked: number[] = [];
        let values: unknown[] | undefined;
        for (let page = 0; page < 10; page++) {
          const filter = filterOf(orderBy);
          filter.limit = 4;
          if (values !== undefined) {
            const condition = keysetCondition(order, values);
            if (condition === undefined) break;
            filter.add(condition);
          }
          const rows = await context.select(Company, filter);
          walked.push(...rows.map((c) => c.id));
          if (rows.length < 4) break;
          const last = rows[rows.length - 1];
          values = order.map((item) => item.column.get(last));
        }
        assert.deepEqual(walked, all);
      });
    }
  });
}
