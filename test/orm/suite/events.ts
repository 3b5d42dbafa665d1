import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { Context, ValidationError } from "tenon";
import { createValidationSchema, lowerKeys, Ticket, ticketLog } from "../fixtures-validation.js";
import type { EngineHarness, TestDatabase } from "../harness.js";

/** Entity events: order, one transaction, and rollback on any exception, checked on the stored rows. */
export function eventsSuite(harness: EngineHarness): void {
  describe(`${harness.name}: entity events`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await harness.open();
      await createValidationSchema(harness, db);
    });
    after(async () => db.close());
    beforeEach(() => {
      ticketLog.length = 0;
    });

    const stored = async (id: number): Promise<Record<string, unknown> | undefined> => {
      const rows = await db.rows(`SELECT Title, Status, VersionID FROM Tickets WHERE ID = ${id}`);
      return rows.length === 0 ? undefined : lowerKeys(rows[0]);
    };
    const serials = (): number[] => ticketLog.filter((line) => line.startsWith("class")).map((line) => Number(line.split(" ")[2]));

    it("an insert runs the event class, then the marked method, the statement, and the after-events, all in the transaction", async () => {
      await using context = new Context(db.database);
      const ticket = new Ticket();
      ticket.title = "first";
      await context.insert(ticket);
      assert.deepEqual(
        ticketLog.map((line) => line.replace(/ \d+/, "")),
        ["class before in", "beforeInsert in", "class after rows=1", "afterInsert"],
      );
      const [beforeSerial, afterSerial] = serials();
      assert.equal(beforeSerial, afterSerial, "before and after run on the same event instance");
      assert.equal((await stored(ticket.id))?.title, "first");
    });

    it("each write constructs its own event instance", async () => {
      await using context = new Context(db.database);
      const ticket = new Ticket();
      ticket.title = "twice";
      await context.insert(ticket);
      const insertSerial = serials()[0];
      ticketLog.length = 0;
      ticket.status = "closed";
      await context.update(ticket);
      const [updateBefore, updateAfter] = serials();
      assert.notEqual(updateBefore, insertSerial);
      assert.equal(updateBefore, updateAfter);
      assert.deepEqual(
        ticketLog.map((line) => line.replace(/ \d+/, "")),
        ["class before in", "beforeUpdate", "class after rows=1", "afterUpdate"],
      );
    });

    it("a before-event runs before validation and may make the entity valid", async () => {
      await using context = new Context(db.database);
      const ticket = new Ticket();
      await context.insert(ticket);
      assert.equal((await stored(ticket.id))?.title, "(untitled)");
    });

    it("a validation failure after the before-events skips the statement and the after-events", async () => {
      await using context = new Context(db.database);
      const ticket = new Ticket();
      ticket.title = "valid";
      await context.insert(ticket);
      ticketLog.length = 0;
      ticket.title = "   ";
      await assert.rejects(context.update(ticket), ValidationError);
      assert.deepEqual(
        ticketLog.map((line) => line.replace(/ \d+/, "")),
        ["class before in", "beforeUpdate"],
      );
      assert.equal((await stored(ticket.id))?.title, "valid");
    });

    for (const where of ["class before", "beforeInsert", "class after", "afterInsert"]) {
      it(`an exception in the insert's ${where} event leaves no row`, async () => {
        await using context = new Context(db.database);
        const ticket = await context.createEntity(Ticket);
        ticket.title = `fail ${where}`;
        await assert.rejects(context.insert(ticket), new RegExp(`event failed at ${where}`));
        assert.equal(await stored(ticket.id), undefined);
        assert.equal((await db.rows(`SELECT ID FROM Tickets WHERE Title = 'fail ${where}'`)).length, 0);
      });
    }

    for (const where of ["beforeUpdate", "afterUpdate", "class after"]) {
      it(`an exception in the update's ${where} event leaves the row unchanged`, async () => {
        await using context = new Context(db.database);
        const ticket = new Ticket();
        ticket.title = "unchanged";
        await context.insert(ticket);
        ticket.title = `fail ${where}`;
        ticket.status = "changed";
        await assert.rejects(context.update(ticket), new RegExp(`event failed at ${where}`));
        const row = await stored(ticket.id);
        assert.equal(row?.title, "unchanged");
        assert.equal(row?.status, "open");
        assert.equal(Number(row?.versionid), 0);
      });
    }

    it("a delete runs its events and an exception in a before- or after-delete event keeps the row", async () => {
      await using context = new Context(db.database);
      const kept = new Ticket();
      kept.title = "keep me";
      kept.status = "locked";
      await context.insert(kept);
      await assert.rejects(context.delete(kept), /a locked ticket cannot be deleted/);
      assert.equal((await stored(kept.id))?.title, "keep me");

      const late = new Ticket();
      late.title = "late failure";
      late.status = "fail after delete";
      await context.insert(late);
      await assert.rejects(context.delete(late), /event failed at afterDelete/);
      assert.equal((await stored(late.id))?.title, "late failure");

      const gone = new Ticket();
      gone.title = "delete me";
      await context.insert(gone);
      ticketLog.length = 0;
      await context.delete(gone);
      assert.deepEqual(
        ticketLog.map((line) => line.replace(/ \d+/, "")),
        ["class before in", "beforeDelete", "class after rows=0", "afterDelete"],
      );
      assert.equal(await stored(gone.id), undefined);
    });
  });
}
