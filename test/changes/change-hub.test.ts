// The change hub on a real SQLite file: a receiver attached to it is handed every record committed after it
// attached, once and in position order, in the batches the hub read; what the memory holds is answered at once,
// and a position the memory no longer reaches is left to a read of the database; a receiver that throws does not
// keep the others from their batch; a hub that could not start starts at the next reader.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ChangeFeed, ChangeHub, Column, Context, PrimaryKey, Schema, Sequence, type StoredChange, Table, Type } from "tenon";
import { SqliteDatabase } from "tenon/sqlite";

@Table("HubNotes")
@Sequence("HubNotesID")
@ChangeFeed()
class HubNote {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Text", Type.varchar(50)) text = "";
}

/** Waits until `done` holds, looking every 10 ms (no bound on a busy machine but the test runner's). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("the change hub", () => {
  const directory = mkdtempSync(join(tmpdir(), "tenon-hub-"));
  const database = new SqliteDatabase({ filename: join(directory, "hub.sqlite") });
  // A small memory, so that a position it no longer reaches comes within a few inserts.
  const hub = ChangeHub.of(database, { bufferSize: 8 });

  before(async () => {
    await Schema.apply(database, [HubNote], { changeFeed: true });
  });
  after(async () => {
    await database.close();
    rmSync(directory, { recursive: true, force: true });
  });

  async function insert(count: number): Promise<number[]> {
    await using context = new Context(database);
    const notes = Array.from({ length: count }, (_, i) => Object.assign(new HubNote(), { text: `note ${i}` }));
    await context.transaction(async () => {
      for (const note of notes) await context.insert(note);
    });
    return notes.map((note) => note.id);
  }

  test("an attached receiver is handed every record committed after it attached, once, in position order", async () => {
    const batches: StoredChange[][] = [];
    const detach = await hub.attach({ receive: (changes) => batches.push([...changes]) });
    try {
      const start = hub.head;
      const keys = [...(await insert(3)), ...(await insert(1)), ...(await insert(2))];
      await until(() => batches.flat().length >= keys.length);
      const received = batches.flat();
      assert.deepEqual(
        received.map((change) => change.key),
        keys,
      );
      assert.deepEqual(
        received.map((change) => change.position),
        keys.map((_, i) => start + i + 1),
      );
      // A batch is what one read found: a transaction's records come together.
      assert.ok(batches.length <= 3, `${batches.length} batches for three commits`);
    } finally {
      detach();
    }
  });

  test("buffered answers what the memory holds after a position, and undefined once the memory no longer reaches it", async () => {
    const seen: number[] = [];
    const detach = await hub.attach({ receive: (changes) => seen.push(...changes.map((change) => change.position)) });
    try {
      const start = hub.head;
      await insert(4);
      await until(() => seen.length >= 4);
      assert.deepEqual(
        hub.buffered(start)?.map((change) => change.position),
        [start + 1, start + 2, start + 3, start + 4],
      );
      assert.deepEqual(hub.buffered(hub.head), []);
      // Far more than the memory keeps: the oldest are dropped, and a reader that far behind reads the database.
      await insert(20);
      await until(() => seen.length >= 24);
      assert.equal(hub.buffered(start), undefined);
      const fromDatabase = await hub.after(start, {}, 100);
      assert.deepEqual(
        fromDatabase.map((change) => change.position),
        Array.from({ length: 24 }, (_, i) => start + i + 1),
      );
    } finally {
      detach();
    }
  });

  test("a hub that could not start (no change table yet) starts at the next reader once it can", async () => {
    const other = new SqliteDatabase({ filename: join(directory, "late.sqlite") });
    try {
      const late = ChangeHub.of(other);
      await assert.rejects(late.attach({ receive: () => undefined }));
      await Schema.apply(other, [HubNote], { changeFeed: true });
      const taken: number[] = [];
      const detach = await late.attach({ receive: (changes) => taken.push(...changes.map((change) => change.key)) });
      try {
        await using context = new Context(other);
        const note = Object.assign(new HubNote(), { text: "late" });
        await context.insert(note);
        await until(() => taken.length >= 1);
        assert.deepEqual(taken, [note.id]);
      } finally {
        detach();
      }
    } finally {
      await other.close();
    }
  });

  test("a receiver that throws does not keep the next one from its batch", async () => {
    const taken: number[] = [];
    const detachFirst = await hub.attach({
      receive: () => {
        throw new Error("a receiver's own failure");
      },
    });
    const detachSecond = await hub.attach({ receive: (changes) => taken.push(...changes.map((change) => change.key)) });
    try {
      const keys = await insert(2);
      await until(() => taken.length >= 2);
      assert.deepEqual(taken, keys);
    } finally {
      detachFirst();
      detachSecond();
    }
  });
});
