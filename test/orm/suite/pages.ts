import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Context, Filter } from "tenon";
import { Company } from "../fixtures.js";
import type { EngineHarness, TestDatabase } from "../harness.js";
import { createSchema } from "../schema.js";

/** A list's count and its page read together (Context.selectPage, what the CRUD reader answers). */
export function pagesSuite(harness: EngineHarness): void {
  describe(`${harness.name}: a page and its count`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await harness.open();
      await createSchema(harness, db);
    });
    after(async () => db.close());

    const snapFilter = (limit: number, offset = 0): Filter => {
      const filter = new Filter().addWhere("Name LIKE :prefix", { prefix: "Snap%" });
      filter.limit = limit;
      filter.offset = offset;
      return filter;
    };

    it("under concurrent inserts the count always matches the page it came with", async () => {
      let writing = true;
      const writers = Array.from({ length: 3 }, async (_, w) => {
        let n = 0;
        while (writing && n < 150) {
          await using context = new Context(db.database);
          const company = await context.createEntity(Company);
          company.name = `Snap ${w}-${n++}`;
          await context.insert(company);
        }
      });
      const mismatches: string[] = [];
      let reads = 0;
      const readers = Array.from({ length: 2 }, async () => {
        for (let n = 0; n < 40; n++) {
          await using context = new Context(db.database);
          const { count, entities } = await context.selectPage(Company, snapFilter(1000));
          reads++;
          if (count !== entities.length) mismatches.push(`count ${count}, page ${entities.length}`);
        }
      });
      await Promise.all(readers);
      writing = false;
      await Promise.all(writers);
      assert.equal(reads, 80);
      assert.deepEqual(mismatches, []);
    });

    it("a page in the middle and a page past the end both carry the full count", async () => {
      await using context = new Context(db.database);
      for (let n = 0; n < 12; n++) {
        const company = await context.createEntity(Company);
        company.name = `Snap page ${n}`;
        await context.insert(company);
      }
      const total = (await context.selectPage(Company, snapFilter(1000))).count;
      assert.ok(total >= 12);
      const middle = await context.selectPage(Company, snapFilter(5, 3));
      assert.equal(middle.count, total);
      assert.equal(middle.entities.length, 5);
      const past = await context.selectPage(Company, snapFilter(5, total + 10));
      assert.deepEqual([past.count, past.entities.length], [total, 0]);
      const none = await context.selectPage(Company, new Filter().addWhere("Name = :name", { name: "nobody" }));
      assert.deepEqual([none.count, none.entities.length], [0, 0]);
    });
  });
}
