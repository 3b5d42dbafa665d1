import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import { Context, DatabaseError, Filter } from "tenon";
import { Company, insertCompany } from "../fixtures.js";
import type { EngineHarness, TestDatabase } from "../harness.js";
import { createSchema } from "../schema.js";

/** Explicit transactions, rollback, and transactions of concurrent sessions. */
export function transactionsSuite(harness: EngineHarness): void {
  describe(`${harness.name}: transactions`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await harness.open();
      await createSchema(harness, db);
    });
    after(async () => db.close());

    const count = async (name: string): Promise<number> => (await db.rows(`SELECT ID FROM Companies WHERE Name = '${name}'`)).length;

    it("a transaction that throws rolls back every write in it", async () => {
      await using context = new Context(db.database);
      await assert.rejects(
        context.transaction(async () => {
          for (let i = 0; i < 3; i++) {
            await insertCompany(context, "Rolled back");
          }
          throw new Error("changed my mind");
        }),
        /changed my mind/,
      );
      assert.equal(await count("Rolled back"), 0);
    });

    it("a transaction that resolves commits every write in it", async () => {
      await using context = new Context(db.database);
      const result = await context.transaction(async () => {
        for (let i = 0; i < 2; i++) {
          await insertCompany(context, "Committed");
        }
        return "done";
      });
      assert.equal(result, "done");
      assert.equal(await count("Committed"), 2);
    });

    it("two transactions that await in the middle do not interleave and both results are right", async () => {
      const run = async (name: string, rollback: boolean): Promise<void> => {
        await using context = new Context(db.database);
        await context.transaction(async () => {
          await insertCompany(context, name);
          await sleep(30);
          await insertCompany(context, name);
          await sleep(10);
          if (rollback) throw new Error("roll back " + name);
        });
      };
      const results = await Promise.allSettled([run("Concurrent kept", false), run("Concurrent dropped", true)]);
      assert.equal(results[0].status, "fulfilled");
      assert.equal(results[1].status, "rejected");
      assert.equal(await count("Concurrent kept"), 2);
      assert.equal(await count("Concurrent dropped"), 0);
    });

    it("a statement outside a transaction sees only committed rows of another session's transaction", async () => {
      await using writer = new Context(db.database);
      await using reader = new Context(db.database);
      let seenInside = -1;
      let reading: Promise<number> | undefined;
      await writer.transaction(async () => {
        await insertCompany(writer, "Isolated");
        reading = reader.selectCount(Company, new Filter().addWhere("Name = :n", { n: "Isolated" }));
        // The embedded engine holds the reader until the commit; a server engine answers at once.
        const settled = await Promise.race([reading, sleep(50).then(() => "pending" as const)]);
        seenInside = settled === "pending" ? 0 : settled;
      });
      await reading;
      assert.equal(seenInside, 0);
      assert.equal(await count("Isolated"), 1);
    });

    it("several sessions held back by another session's transaction all run once it ends", async () => {
      await using writer = new Context(db.database);
      const readers = [new Context(db.database), new Context(db.database), new Context(db.database)];
      let counting: Promise<number[]> | undefined;
      // The embedded engine holds the readers until the commit, so each sees the row; a server engine answers
      // them while the transaction is still open (it waits for them here), so none sees it. Never a hang.
      const embedded = harness.name.startsWith("SQLite");
      await writer.transaction(async () => {
        await insertCompany(writer, "Held Back");
        counting = Promise.all(
          readers.map((reader) => reader.selectCount(Company, new Filter().addWhere("Name = :n", { n: "Held Back" }))),
        );
        if (embedded) await sleep(20);
        else await counting;
      });
      const counts = await counting;
      for (const reader of readers) await reader.dispose();
      assert.deepEqual(counts, embedded ? [1, 1, 1] : [0, 0, 0]);
      assert.equal(await count("Held Back"), 1);
    });

    it("a read by key during another session's transaction never sees its uncommitted change", async () => {
      await using setup = new Context(db.database);
      const company = await insertCompany(setup, "Committed Name");
      await using writer = new Context(db.database);
      await using reader = new Context(db.database);
      let reading: Promise<Company | null> | undefined;
      await assert.rejects(
        writer.transaction(async () => {
          const mine = await writer.get(Company, company.id);
          mine.name = "Uncommitted Name";
          await writer.update(mine);
          reading = reader.tryGet(Company, company.id);
          await sleep(20);
          throw new Error("roll it back");
        }),
        /roll it back/,
      );
      assert.equal((await reading)?.name, "Committed Name");
    });

    it("a write with no events, sent without a transaction of its own, is not swept into another session's transaction", async () => {
      await using writer = new Context(db.database);
      await using other = new Context(db.database);
      let alone: Promise<void> | undefined;
      await assert.rejects(
        writer.transaction(async () => {
          await insertCompany(writer, "Swept away");
          const single = new Company();
          single.name = "Written alone";
          // Company has no events and no @Validator: its insert is one statement, sent outside any transaction.
          alone = other.insert(single);
          await sleep(30);
          throw new Error("roll back the writer");
        }),
        /roll back the writer/,
      );
      await alone;
      assert.equal(await count("Swept away"), 0);
      assert.equal(await count("Written alone"), 1);
    });

    it("a single-statement write the database refuses leaves no row, and the session goes on", async () => {
      await using context = new Context(db.database);
      const first = await insertCompany(context, "Refused twin");
      const twin = new Company();
      twin.id = first.id;
      twin.name = "Refused twin";
      await assert.rejects(context.insert(twin), (error: Error) => error.name === "UniqueViolationError" && error instanceof DatabaseError);
      assert.equal(await count("Refused twin"), 1);
      first.name = "Refused twin, renamed";
      await context.update(first);
      const stored = await db.rows(`SELECT VersionID AS v FROM Companies WHERE Name = 'Refused twin, renamed'`);
      assert.deepEqual(
        stored.map((row) => Number(row.v)),
        [1],
      );
    });
  });
}
