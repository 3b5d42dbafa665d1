// The change hub's wake-up through Redis pub/sub (127.0.0.1:6379): two database objects on one SQLite file
// stand for two processes; a hub that polls only every minute learns of the other's commit at once through a
// channel of this run's own, and a rolled-back write publishes nothing.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createClient } from "redis";
import { ChangeFeed, ChangeHub, Column, Context, PrimaryKey, Schema, Sequence, Table, Type, useRedisChangeWakeUp } from "tenon";
import { SqliteDatabase } from "tenon/sqlite";
import { reportUnreachable } from "../orm/engine-availability.js";

@Table("WakeItems")
@Sequence("WakeItemsID")
@ChangeFeed()
class WakeItem {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Name", Type.varchar(50)) name = "";
}

const url = "redis://127.0.0.1:6379";
const probe = createClient({ url, disableOfflineQueue: true });
probe.on("error", () => undefined);
const reason = await probe.connect().then(
  () => undefined,
  (error: Error) => error.message,
);
if (reason === undefined) await probe.quit();

if (reason !== undefined) reportUnreachable("Redis", reason, "Redis wake-up test");
else
  describe("the change hub's wake-up through Redis", () => {
    const directory = mkdtempSync(join(tmpdir(), "tenon-redis-wake-"));
    const file = join(directory, "wake.sqlite");
    const channel = `tenon-test:${process.pid}:${randomUUID()}`;
    const writerDb = new SqliteDatabase({ filename: file });
    const readerDb = new SqliteDatabase({ filename: file });
    const clients = [createClient({ url }), createClient({ url }), createClient({ url }), createClient({ url })];
    const messages: string[] = [];
    const stops: (() => void)[] = [];

    before(async () => {
      for (const client of clients) await client.connect();
      await Schema.apply(writerDb, [WakeItem], { changeFeed: true });
      const [writerPublisher, writerSubscriber, readerPublisher, readerSubscriber] = clients;
      // Each "process" publishes and subscribes; a third listener counts what goes over the channel.
      stops.push(useRedisChangeWakeUp(writerDb, { publisher: writerPublisher, subscriber: writerSubscriber, channel }));
      ChangeHub.of(readerDb, { pollIntervalMs: 60_000 });
      stops.push(useRedisChangeWakeUp(readerDb, { publisher: readerPublisher, subscriber: readerSubscriber, channel }));
      const counter = clients[1].duplicate();
      clients.push(counter);
      await counter.connect();
      await counter.subscribe(channel, (message) => messages.push(message));
    });
    after(async () => {
      for (const stop of stops) stop();
      for (const client of clients) await client.quit().catch(() => undefined);
      await writerDb.close();
      await readerDb.close();
      rmSync(directory, { recursive: true, force: true });
    });

    test("a commit in another process wakes the hub at once through the channel, though it polls only every minute", async () => {
      const hub = ChangeHub.of(readerDb);
      let woken = 0;
      const unsubscribe = await hub.subscribe(() => woken++);
      try {
        const start = hub.head;
        await using writer = new Context(writerDb);
        await assert.rejects(
          writer.transaction(async () => {
            await writer.insert(Object.assign(new WakeItem(), { name: "never" }));
            throw new Error("rolled back");
          }),
        );
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(woken, 0, "a rolled-back write wakes nobody");
        assert.deepEqual(messages, [], "and publishes nothing");
        const item = Object.assign(new WakeItem(), { name: "heard" });
        const committed = Date.now();
        await writer.insert(item);
        for (let i = 0; i < 2000 && woken === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
        assert.equal(woken, 1);
        // Far under the minute of polling (and the 2 s of the safety net): the message woke it.
        assert.ok(Date.now() - committed < 20_000);
        assert.ok(messages.length >= 1, "the commit published on the channel");
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
