// The change hub's cross-process wake-up on PostgreSQL: a hub whose polling is too slow to matter learns of a
// commit made through another pool (another process, as far as the hub can tell) through LISTEN/NOTIFY, and a
// rolled-back write notifies nothing.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ChangeFeed, ChangeHub, Column, Context, PrimaryKey, Schema, Sequence, Table, Type } from "tenon";
import type { PostgresDatabase } from "tenon/postgres";
import { reportUnreachable } from "../orm/engine-availability.js";
import { openPostgres, postgresUnreachable, type PostgresTestDatabase } from "../orm/harness-postgres.js";

@Table("HubItems")
@Sequence("HubItemsID")
@ChangeFeed()
class HubItem {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Name", Type.varchar(50)) name = "";
}

const reason = await postgresUnreachable();
if (reason !== undefined) reportUnreachable("PostgreSQL", reason);
else
  describe("PostgreSQL: the change hub's wake-up", () => {
    let db: PostgresTestDatabase;
    let reader: PostgresDatabase;
    before(async () => {
      db = await openPostgres();
      await Schema.apply(db.database, [HubItem], { changeFeed: true });
      reader = db.openDatabase();
    });
    after(async () => {
      await db.close();
    });

    test("a commit through another pool wakes the hub through NOTIFY, though it polls only every hour", async () => {
      const hub = ChangeHub.of(reader, { pollIntervalMs: 3_600_000 });
      let woken = 0;
      const unsubscribe = await hub.subscribe(() => woken++);
      try {
        const start = hub.head;
        await using writer = new Context(db.database);
        const rolledBack = Object.assign(new HubItem(), { name: "never" });
        await assert.rejects(
          writer.transaction(async () => {
            await writer.insert(rolledBack);
            throw new Error("rolled back");
          }),
        );
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(woken, 0, "a rolled-back write notifies nobody");
        const item = Object.assign(new HubItem(), { name: "heard" });
        await writer.insert(item);
        // The hub polls once an hour here, so only the notification can wake it (no wall-clock bound: a busy
        // machine may take its time; the test runner's timeout says "hung").
        while (woken === 0) await new Promise((resolve) => setTimeout(resolve, 10));
        assert.equal(woken, 1);
        const changes = await hub.after(start, {}, 10);
        assert.deepEqual(
          changes.map((change) => [change.key, change.action]),
          [[item.id, "insert"]],
        );
      } finally {
        unsubscribe();
      }
    });

    test("readers that join and leave while another pool commits: the head never goes back, and after() answers every record up to it", async () => {
      // A change stream takes the hub's head, reads after its cursor, and moves its cursor to that head: so the hub
      // must answer every record up to a head it showed, also when it stopped (its last reader left) and started
      // again while a read of the stopped hub was still under way.
      const hub = ChangeHub.of(reader);
      let writing = true;
      const writes = (async () => {
        await using writer = new Context(db.database);
        for (let n = 0; writing; n++) await writer.insert(Object.assign(new HubItem(), { name: `w${n}` }));
      })();
      const problems: string[] = [];
      // Each reader resumes where the last one stopped, as a client with Last-Event-ID does.
      let cursor = -1;
      try {
        for (let round = 0; round < 300 && problems.length === 0; round++) {
          const unsubscribe = await hub.subscribe(() => undefined);
          try {
            if (cursor < 0) cursor = hub.head;
            for (let step = 0; step < 3; step++) {
              const head = hub.head;
              const changes = await hub.after(cursor, {}, 10_000);
              const positions = changes.map((change) => change.position);
              for (let position = cursor + 1; position <= head; position++)
                if (!positions.includes(position)) problems.push(`round ${round}: ${position} missing of (${cursor}, ${head}]`);
              if (head < cursor) problems.push(`round ${round}: the head went back from ${cursor} to ${head}`);
              cursor = Math.max(cursor, head, ...positions);
              await new Promise((resolve) => setImmediate(resolve));
            }
          } finally {
            unsubscribe();
          }
        }
      } finally {
        writing = false;
        await writes;
      }
      assert.deepEqual(problems, []);
    });
  });
