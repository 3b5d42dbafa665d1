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

    test("a commit through another pool wakes the hub at once through NOTIFY, though it polls only every minute", async () => {
      const hub = ChangeHub.of(reader, { pollIntervalMs: 60_000 });
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
        const committed = Date.now();
        await writer.insert(item);
        for (let i = 0; i < 500 && woken === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
        assert.equal(woken, 1);
        // Well under the minute of polling: the notification woke it (the bound is generous for a busy machine).
        assert.ok(Date.now() - committed < 5_000);
        const changes = await hub.after(start, {}, 10);
        assert.deepEqual(
          changes.map((change) => [change.key, change.action]),
          [[item.id, "insert"]],
        );
      } finally {
        unsubscribe();
      }
    });
  });
