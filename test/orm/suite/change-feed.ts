import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import {
  ChangeFeed,
  ChangeLog,
  changeFeedRetryPolicy,
  Column,
  Context,
  CreatedBy,
  DeletedAt,
  PrimaryKey,
  Schema,
  Sequence,
  Table,
  TenantColumn,
  Type,
  UpdatedBy,
  VersionColumn,
  type StoredChange,
} from "tenon";
import type { EngineHarness, TestDatabase } from "../harness.js";

/** An item with a change feed, soft delete, a version and the Created and Updated users. */
@Table("FeedItems")
@Sequence("FeedItemsID")
@ChangeFeed()
export class FeedItem {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Name", Type.varchar(50)) name = "";
  @Column("Price", Type.decimal(10, 2)) price = "0.00";
  @CreatedBy @Column("CreatedBy", Type.string) createdBy = "";
  @UpdatedBy @Column("UpdatedBy", Type.string.orNull) updatedBy: string | null = null;
  @DeletedAt @Column("DeletedAt", Type.date.orNull) deletedAt: Date | null = null;
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** A tenant's note with a change feed that sends only its text, deleted for real. */
@Table("FeedNotes")
@Sequence("FeedNotesID")
@ChangeFeed({ members: ["text"] })
export class FeedNote {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @TenantColumn @Column("TenantID", Type.varchar(20)) tenantId = "";
  @Column("Text", Type.varchar(50)) text = "";
  @Column("Secret", Type.varchar(50)) secret = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** An entity without a change feed: its writes leave no record. */
@Table("FeedQuiet")
@Sequence("FeedQuietID")
export class Quiet {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Name", Type.varchar(50)) name = "";
}

/** The transactional outbox: one change record per committed write, in commit order, none for a rollback. */
export function changeFeedSuite(harness: EngineHarness): void {
  describe(`${harness.name}: change feed`, () => {
    let db: TestDatabase;
    let log: ChangeLog;
    const opened: Context[] = [];
    const session = (user = "writer", tenant?: string): Context => {
      const context = new Context(db.database);
      context.onGetCurrentUser = () => user;
      if (tenant !== undefined) context.onGetCurrentTenant = () => tenant;
      else context.unscoped = true;
      opened.push(context);
      return context;
    };
    const all = async (): Promise<StoredChange[]> => log.read({ after: 0, limit: 100_000 });
    const since = async (position: number): Promise<StoredChange[]> => log.read({ after: position, limit: 100_000 });
    const head = async (): Promise<number> => (await log.bounds()).head;
    const item = (name: string, price = "1.00"): FeedItem => Object.assign(new FeedItem(), { name, price });

    before(async () => {
      db = await harness.open();
      await Schema.apply(db.database, [FeedItem, FeedNote, Quiet], {
        changeFeed: true,
        galera: db.database.dialect.schema?.galeraSequences === true,
      });
      log = new ChangeLog(db.database);
    });
    // SQLite through either driver ("SQLite", "SQLite (node:sqlite)") serialises writers.
    const embedded = harness.name.startsWith("SQLite");
    afterEach(async () => {
      for (const context of opened.splice(0)) await context.dispose();
    });
    after(async () => {
      await db.close();
    });

    it("the schema tool creates the change tables, and a second apply finds nothing to do", async () => {
      const diff = await Schema.diff(db.database, [FeedItem, FeedNote, Quiet], {
        changeFeed: true,
        galera: db.database.dialect.schema?.galeraSequences === true,
      });
      assert.equal(diff.isEmpty, true, diff.differences.map((each) => each.message).join("\n"));
      assert.deepEqual(await all(), []);
    });

    it("an insert, an update, a soft delete and an undelete each leave one record with the entity as committed", async () => {
      const start = await head();
      const writer = session("alice");
      const entity = item("Anvil", "10.50");
      await writer.insert(entity);
      const editor = session("bob");
      // An update from an object that lacks the Created pair (as one built from a JSON body does).
      const edited = Object.assign(new FeedItem(), { id: entity.id, name: "Anvil II", price: "11.00", versionId: 0 });
      await editor.update(edited);
      const loaded = await editor.get(FeedItem, entity.id);
      await editor.delete(loaded);
      await editor.undelete(loaded);
      const records = await since(start);
      assert.deepEqual(
        records.map((r) => [r.entity, r.key, r.action, r.version, r.user, r.tenant]),
        [
          ["FeedItem", entity.id, "insert", 0, "alice", null],
          ["FeedItem", entity.id, "update", 1, "bob", null],
          ["FeedItem", entity.id, "delete", 2, "bob", null],
          ["FeedItem", entity.id, "undelete", 3, "bob", null],
        ],
      );
      assert.deepEqual(
        records.map((r) => r.position),
        [start + 1, start + 2, start + 3, start + 4],
      );
      const insertData = JSON.parse(records[0].data ?? "null");
      assert.deepEqual(insertData, {
        id: entity.id,
        name: "Anvil",
        price: "10.50",
        createdBy: "alice",
        updatedBy: null,
        deletedAt: null,
        versionId: 0,
      });
      const updateData = JSON.parse(records[1].data ?? "null");
      assert.equal(updateData.createdBy, "alice", "the update's data is the committed row, not the written object");
      assert.equal(updateData.name, "Anvil II");
      assert.equal(updateData.updatedBy, "bob");
      assert.equal(updateData.versionId, 1);
      assert.notEqual(JSON.parse(records[2].data ?? "null").deletedAt, null);
      assert.equal(JSON.parse(records[3].data ?? "null").deletedAt, null);
      for (const record of records) assert.ok(Math.abs(record.changedAt - Date.now()) < 600_000);
    });

    it("a hard delete leaves a record with the version after the deleted one; a feed's members limit the data", async () => {
      const start = await head();
      const writer = session("carol", "north");
      const note = Object.assign(new FeedNote(), { text: "hello", secret: "never sent" });
      await writer.insert(note);
      await writer.delete(note);
      const records = await since(start);
      assert.deepEqual(
        records.map((r) => [r.action, r.version, r.tenant]),
        [
          ["insert", 0, "north"],
          ["delete", 1, "north"],
        ],
      );
      assert.deepEqual(JSON.parse(records[0].data ?? "null"), { id: note.id, text: "hello" });
    });

    it("bulk inserts, updates and deletes leave one record per item, in item order", async () => {
      const start = await head();
      const writer = session("dave");
      const items = [item("B1"), item("B2"), item("B3")];
      await writer.insertAll(items);
      for (const each of items) each.name += "+";
      await writer.updateAll(items);
      await writer.deleteAll(items);
      const notes = [Object.assign(new FeedNote(), { text: "n1" }), Object.assign(new FeedNote(), { text: "n2" })];
      const tenantWriter = session("dave", "south");
      await tenantWriter.insertAll(notes);
      await tenantWriter.deleteAll(notes);
      const records = await since(start);
      const ids = items.map((each) => each.id);
      const noteIds = notes.map((each) => each.id);
      assert.deepEqual(
        records.map((r) => [r.key, r.action, r.version]),
        [
          ...ids.map((id) => [id, "insert", 0]),
          ...ids.map((id) => [id, "update", 1]),
          ...ids.map((id) => [id, "delete", 2]),
          ...noteIds.map((id) => [id, "insert", 0]),
          ...noteIds.map((id) => [id, "delete", 1]),
        ],
      );
      assert.equal(JSON.parse(records[3].data ?? "null").name, "B1+");
      assert.equal(JSON.parse(records[3].data ?? "null").createdBy, "dave");
    });

    it("a rolled-back transaction leaves no record, and the next commit takes the next position", async () => {
      const start = await head();
      const writer = session();
      await assert.rejects(
        writer.transaction(async () => {
          await writer.insert(item("Ghost"));
          await writer.insertAll([item("Ghost 2"), item("Ghost 3")]);
          throw new Error("changed my mind");
        }),
        /changed my mind/,
      );
      assert.deepEqual(await since(start), []);
      assert.equal(await head(), start);
      const kept = item("Kept");
      await writer.insert(kept);
      const records = await since(start);
      assert.deepEqual(
        records.map((r) => [r.position, r.key]),
        [[start + 1, kept.id]],
      );
    });

    it("an entity without @ChangeFeed leaves no record", async () => {
      const start = await head();
      const writer = session();
      const quiet = Object.assign(new Quiet(), { name: "shh" });
      await writer.insert(quiet);
      quiet.name = "still";
      await writer.update(quiet);
      await writer.delete(quiet);
      assert.deepEqual(await since(start), []);
    });

    it(
      embedded
        ? "a transaction holding a write keeps other writers out until it ends, so positions follow commits (SQLite serialises writers)"
        : "positions follow commit order, not the order writes began: a reader that saw a later commit never skips an earlier write",
      async () => {
        const start = await head();
        const early = session("early");
        const late = session("late");
        const first = item("First");
        let release: () => void = () => undefined;
        const held = new Promise<void>((resolve) => (release = resolve));
        let wrote: () => void = () => undefined;
        const written = new Promise<void>((resolve) => (wrote = resolve));
        // The early transaction writes first (its key is drawn first) and stays open.
        const earlyCommit = early.transaction(async () => {
          await early.insert(first);
          wrote();
          await held;
        });
        await written;
        const second = item("Second");
        const lateWrite = late.insert(second);
        if (embedded) {
          // The second writer waits for the first transaction: nothing commits out of order.
          const raced = await Promise.race([lateWrite.then(() => "committed"), new Promise((r) => setTimeout(() => r("waiting"), 200))]);
          assert.equal(raced, "waiting");
          release();
          await earlyCommit;
          await lateWrite;
          assert.deepEqual(
            (await since(start)).map((r) => r.key),
            [first.id, second.id],
          );
          return;
        }
        await lateWrite;
        // A reader now sees the later write at the first position after `start`...
        const seen = await since(start);
        assert.deepEqual(
          seen.map((r) => [r.position, r.key]),
          [[start + 1, second.id]],
        );
        release();
        await earlyCommit;
        // ...and the earlier write, committed after it, comes after what the reader saw: resuming misses nothing.
        const resumed = await since(seen[seen.length - 1].position);
        assert.deepEqual(
          resumed.map((r) => [r.position, r.key]),
          [[start + 2, first.id]],
        );
      },
    );

    it("several transactions held open and committed in reverse order get positions in commit order, without gaps", async () => {
      const start = await head();
      const count = embedded ? 1 : 3;
      const releases: (() => void)[] = [];
      const writes: Promise<void>[] = [];
      const entities: FeedItem[] = [];
      const writers: Context[] = [];
      for (let i = 0; i < count; i++) {
        const writer = session(`w${i}`);
        writers.push(writer);
        const entity = item(`Held ${i}`);
        entities.push(entity);
        let wrote: () => void = () => undefined;
        const written = new Promise<void>((resolve) => (wrote = resolve));
        const held = new Promise<void>((resolve) => releases.push(resolve));
        // On a cluster whose every node takes writes (Galera), a transaction that raises the counter after
        // another node's commit fails certification, a transient failure: it runs again, as a writer would.
        writes.push(
          writer.transaction(
            async () => {
              await writer.insert(entity);
              wrote();
              await held;
            },
            { retry: harness.multiPrimary === true ? changeFeedRetryPolicy : false },
          ),
        );
        await written;
      }
      const order: number[] = [];
      for (let i = count - 1; i >= 0; i--) {
        releases[i]();
        await writes[i];
        await writers[i].dispose();
        order.push(entities[i].id);
      }
      const records = await since(start);
      assert.deepEqual(
        records.map((r) => r.key),
        order,
      );
      assert.deepEqual(
        records.map((r) => r.position),
        order.map((_, i) => start + i + 1),
      );
    });

    it("purging by count and by age keeps the newest records without a gap, and positions are never reused", async () => {
      const writer = session();
      for (let i = 0; i < 5; i++) await writer.insert(item(`Purge ${i}`));
      const before = await log.bounds();
      assert.equal(await log.purge({ keep: 2 }), before.head - 2 - ((before.oldest ?? 1) - 1));
      const kept = await all();
      assert.deepEqual(
        kept.map((r) => r.position),
        [before.head - 1, before.head],
      );
      assert.equal((await log.bounds()).oldest, before.head - 1);
      assert.equal(await log.purge({ olderThanMs: 60_000 }), 0, "nothing kept is a minute old");
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(await log.purge({ olderThanMs: 1 }), 2);
      assert.deepEqual(await log.bounds(), { head: before.head, oldest: undefined });
      const next = item("After purge");
      await writer.insert(next);
      assert.deepEqual(
        (await all()).map((r) => [r.position, r.key]),
        [[before.head + 1, next.id]],
      );
    });
  });
}
