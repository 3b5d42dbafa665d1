import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Column, Context, KeyRangeError, PrimaryKey, Sequence, Table, TransientDatabaseError, Type, UniqueViolationError } from "tenon";
import { Gadget } from "../fixtures.js";
import { type EngineHarness, sequenceDdl, sequenceRestartDdl, type TestDatabase } from "../harness.js";
import { createSchema } from "../schema.js";

/** A table of its own, whose keys the range test runs to the end. */
@Table("Ranges")
@Sequence("RangesID")
class Ranged {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Label", Type.string) label = "";
}

/** Key allocation: ids chosen by the caller, duplicates, and the int32 range of keys. */
export function keysSuite(harness: EngineHarness): void {
  describe(`${harness.name}: primary keys drawn and chosen`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await harness.open();
      await createSchema(harness, db);
    });
    after(async () => db.close());

    const gadget = (label: string, id = 0): Gadget => Object.assign(new Gadget(), { id, label });
    const labels = async (): Promise<Map<number, string>> =>
      new Map((await db.rows("SELECT ID AS id, Label AS label FROM Gadgets")).map((row) => [Number(row.id), String(row.label)]));

    it("ids a caller chose just ahead of the sequence never make a later drawn insert fail", async () => {
      await using context = new Context(db.database);
      const next = await context.nextId(Gadget);
      for (let step = 1; step <= 3; step++) await context.insert(gadget(`chosen ${step}`, next + step));
      const drawn = gadget("drawn");
      await context.insert(drawn);
      const inTransaction = gadget("drawn in a transaction");
      await context.insert(gadget("chosen 4", next + 5));
      await context.transaction(async () => context.insert(inTransaction));
      const stored = await labels();
      assert.equal(stored.get(drawn.id), "drawn");
      assert.equal(stored.get(inTransaction.id), "drawn in a transaction");
      for (let step = 1; step <= 3; step++) assert.equal(stored.get(next + step), `chosen ${step}`);
      assert.equal(stored.get(next + 5), "chosen 4");
      assert.ok(drawn.id > next + 3 && inTransaction.id > drawn.id, `${drawn.id}, ${inTransaction.id}`);
    });

    it("a key drawn by createEntity that a caller's id takes before the insert is replaced by the next one", async () => {
      await using context = new Context(db.database);
      const drawn = await context.createEntity(Gadget);
      const taken = drawn.id;
      await using other = new Context(db.database);
      await other.insert(gadget("took it", taken));
      drawn.label = "drawn first";
      // On a multi-primary cluster the other row may reach this node only at certification: the retried
      // transaction then sees it and draws the next key.
      await context.transaction(() => context.insert(drawn), { retry: true });
      assert.ok(drawn.id > taken, String(drawn.id));
      const stored = await labels();
      assert.equal(stored.get(taken), "took it");
      assert.equal(stored.get(drawn.id), "drawn first");
    });

    it("an id that a row already has is a UniqueViolationError on the primary key, and the stored row is unchanged", async () => {
      await using context = new Context(db.database);
      const first = gadget("first");
      await context.insert(first);
      await using other = new Context(db.database);
      await assert.rejects(other.insert(gadget("second", first.id)), (error: unknown) => {
        // A multi-primary cluster may decide the duplicate at certification instead (a conflict, answered 503).
        if (harness.multiPrimary && error instanceof TransientDatabaseError && error.kind === "conflict") return true;
        assert.ok(error instanceof UniqueViolationError, String(error));
        assert.equal(error.onPrimaryKey, true);
        assert.equal(error.entity, "Gadget");
        assert.equal(error.id, first.id);
        return true;
      });
      assert.equal((await labels()).get(first.id), "first");
    });

    it("sessions inserting one new id at once: exactly one succeeds, every other gets UniqueViolationError", async () => {
      const id = 1_000_000 + Math.floor(Math.random() * 1000);
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, async (_, n) => {
          await using context = new Context(db.database);
          try {
            await context.transaction(() => context.insert(gadget(`racer ${n}`, id)));
            return "inserted";
          } catch (error) {
            if (error instanceof UniqueViolationError && error.onPrimaryKey === true) return "duplicate";
            // On a multi-primary cluster, racers on other nodes lose at COMMIT by certification.
            if (harness.multiPrimary && error instanceof TransientDatabaseError && error.kind === "conflict") return "duplicate";
            throw error;
          }
        }),
      );
      assert.equal(outcomes.filter((o) => o === "inserted").length, 1, outcomes.join());
      assert.equal(outcomes.filter((o) => o === "duplicate").length, 7);
      assert.match(String((await labels()).get(id)), /^racer \d$/);
    });

    it("an id of 2147483647 chosen by a caller leaves later keys where they were", async () => {
      await using context = new Context(db.database);
      const before = await context.nextId(Gadget);
      await context.insert(gadget("top", 2147483647));
      const after = gadget("after the top");
      await context.insert(after);
      assert.ok(after.id > before && after.id < before + 100, String(after.id));
      const read = await context.get(Gadget, after.id);
      assert.equal(read.label, "after the top");
    });

    it("a sequence past the int32 range is a KeyRangeError and stores no row", async () => {
      const t = harness.types;
      const start = 2147483600;
      await db.exec(`CREATE TABLE Ranges (ID ${t.int32} NOT NULL PRIMARY KEY, Label ${t.text})`);
      if (harness.hasSequences) {
        await db.exec(sequenceDdl(harness, "RangesID"));
        await db.exec(sequenceRestartDdl(harness, "RangesID", start));
      } else {
        await db.exec("CREATE TABLE IF NOT EXISTS tenon_keys (name TEXT NOT NULL PRIMARY KEY, last INTEGER NOT NULL)");
        await db.exec(`INSERT INTO tenon_keys (name, last) VALUES ('ranges', ${start - 1})`);
      }
      await using context = new Context(db.database);
      const stored: number[] = [];
      let refused: unknown;
      for (let n = 0; n < 200 && refused === undefined; n++) {
        const ranged = Object.assign(new Ranged(), { label: `key ${n}` });
        try {
          await context.insert(ranged);
          stored.push(ranged.id);
        } catch (error) {
          refused = error;
        }
      }
      assert.ok(refused instanceof KeyRangeError, String(refused));
      assert.ok(stored.length > 0 && stored.every((id) => id >= start && id <= 2147483647), stored.join());
      await assert.rejects(context.nextId(Ranged), KeyRangeError);
      const rows = await db.rows("SELECT ID AS id FROM Ranges ORDER BY ID");
      assert.deepEqual(
        rows.map((row) => Number(row.id)),
        stored,
      );
    });
  });
}
