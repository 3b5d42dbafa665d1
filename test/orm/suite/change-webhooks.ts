import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import {
  ChangeFeed,
  ChangeLog,
  ChangeWebhooks,
  type ChangeWebhooksOptions,
  Column,
  Context,
  PrimaryKey,
  Schema,
  Sequence,
  Table,
  TenantColumn,
  Type,
  VersionColumn,
  WebhookConfigurationError,
  WebhookSignature,
  type WebhookSubscription,
} from "tenon";
import { type ReceivedAttempt, WebhookReceiver } from "../../support/webhook-receiver.js";
import type { EngineHarness, TestDatabase } from "../harness.js";

/** A tenant's parcel with a change feed, delivered to webhooks. */
@Table("HookParcels")
@Sequence("HookParcelsID")
@ChangeFeed()
export class HookParcel {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @TenantColumn @Column("TenantID", Type.varchar(20)) tenantId = "";
  @Column("Label", Type.varchar(50)) label = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** A shared notice (no tenant) with a change feed. */
@Table("HookNotices")
@Sequence("HookNoticesID")
@ChangeFeed()
export class HookNotice {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Text", Type.varchar(50)) text = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** An entity whose changes are recorded but not offered to webhooks (it is not among the feeds). */
@Table("HookSecrets")
@Sequence("HookSecretsID")
@ChangeFeed()
export class HookSecret {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Text", Type.varchar(50)) text = "";
}

/** Quick retries, so that the attempts of a failing receiver run out in a moment. */
const quick = { initialDelayMs: 10, maxDelayMs: 40, timeoutMs: 5_000 } as const;

/** The webhooks of the change feed: signed deliveries in order per key, retries, dead letters, replay, leases. */
export function changeWebhooksSuite(harness: EngineHarness): void {
  describe(`${harness.name}: change feed webhooks`, () => {
    let db: TestDatabase;
    let log: ChangeLog;
    const secret = WebhookSignature.newSecret();
    const receivers: WebhookReceiver[] = [];
    const running: ChangeWebhooks[] = [];
    const opened: Context[] = [];

    const session = (tenant?: string): Context => {
      const context = new Context(db.database);
      context.onGetCurrentUser = () => "hooker";
      if (tenant === undefined) context.unscoped = true;
      else context.onGetCurrentTenant = () => tenant;
      opened.push(context);
      return context;
    };
    /** Inserts through a session of its own, given back at once (the pool of a test database is small). */
    const insert = async (entity: object, tenant?: string): Promise<void> => {
      const context = session(tenant);
      await context.insert(entity);
      await context.dispose();
    };
    const receiver = async (): Promise<WebhookReceiver> => {
      const started = await WebhookReceiver.start(secret);
      receivers.push(started);
      return started;
    };
    const webhooks = (subscriptions: WebhookSubscription[], options: Partial<ChangeWebhooksOptions> = {}): ChangeWebhooks => {
      const made = new ChangeWebhooks(db.database, {
        feeds: [HookParcel, HookNotice],
        subscriptions,
        pollMs: 50,
        leaseMs: 1_500,
        ...options,
      });
      running.push(made);
      return made;
    };
    const parcel = (label: string): HookParcel => Object.assign(new HookParcel(), { label });
    const head = async (): Promise<number> => (await log.bounds()).head;
    const since = async (position: number) => log.read({ after: position, limit: 100_000 });
    /** The keys' versions in the order the receiver accepted them, per key. */
    const versionsByKey = (attempts: readonly ReceivedAttempt[]): Map<string, number[]> => {
      const byKey = new Map<string, number[]>();
      for (const attempt of attempts) {
        const key = `${attempt.record.entity}:${attempt.record.key}`;
        byKey.set(key, [...(byKey.get(key) ?? []), attempt.record.version ?? -1]);
      }
      return byKey;
    };

    before(async () => {
      db = await harness.open();
      await Schema.apply(db.database, [HookParcel, HookNotice, HookSecret], {
        changeFeed: true,
        webhooks: true,
        galera: db.database.dialect.schema?.galeraSequences === true,
      });
      log = new ChangeLog(db.database);
    });
    afterEach(async () => {
      for (const each of running.splice(0)) await each.stop();
      for (const each of receivers.splice(0)) await each.stop();
      for (const context of opened.splice(0)) await context.dispose();
    });
    after(async () => {
      await db.close();
    });

    it("the schema tool creates the webhook tables, and a second apply finds nothing to do", async () => {
      const diff = await Schema.diff(db.database, [HookParcel, HookNotice, HookSecret], {
        changeFeed: true,
        webhooks: true,
        galera: db.database.dialect.schema?.galeraSequences === true,
      });
      assert.equal(diff.isEmpty, true, diff.differences.map((each) => each.message).join("\n"));
    });

    it("a receiver gets every committed change once, signed, as its change record; a rolled-back write sends nothing", async () => {
      const hook = await receiver();
      const start = await head();
      const hooks = webhooks([{ name: "all", url: hook.url, secret, ...quick }]);
      await hooks.start();
      assert.deepEqual(hooks.delivering, ["all"]);
      const writer = session();
      const first = parcel("first");
      await writer.insert(first);
      first.label = "first, edited";
      await writer.update(first);
      const notice = Object.assign(new HookNotice(), { text: "hello" });
      await writer.insert(notice);
      await assert.rejects(
        writer.transaction(async () => {
          await writer.insert(parcel("ghost"));
          throw new Error("rolled back");
        }),
        /rolled back/,
      );
      await writer.delete(first);
      await writer.insert(Object.assign(new HookSecret(), { text: "not a feed of the webhooks" }));
      const records = (await since(start)).filter((record) => record.entity !== "HookSecret");
      assert.equal(records.length, 4);
      await hook.waitUntil(() => hook.accepted().length >= records.length);
      await hooks.stop();
      const accepted = hook.accepted();
      // Keys are delivered side by side (the subscription's concurrency): in order per key, not across keys.
      accepted.sort((x, y) => Number(x.id) - Number(y.id));
      assert.deepEqual(
        accepted.map((each) => each.id),
        records.map((record) => String(record.position)),
      );
      assert.deepEqual(versionsByKey(hook.accepted()).get(`HookParcel:${first.id}`), [0, 1, 2], "one key's changes in order");
      assert.deepEqual(
        accepted.map((each) => [each.record.entity, each.record.key, each.record.action, each.record.version]),
        [
          ["HookParcel", first.id, "insert", 0],
          ["HookParcel", first.id, "update", 1],
          ["HookNotice", notice.id, "insert", 0],
          ["HookParcel", first.id, "delete", 2],
        ],
      );
      assert.deepEqual(accepted[1].record.data, { id: first.id, label: "first, edited", versionId: 1 });
      assert.equal(accepted[3].record.data, undefined, "a delete carries no data");
      for (const each of accepted) {
        assert.equal(each.verified, true, "the Standard Webhooks library accepts the signature");
        assert.equal(WebhookSignature.verify(secret, each, each.body), true);
        assert.equal(WebhookSignature.verify(WebhookSignature.newSecret(), each, each.body), false, "another secret does not verify");
        assert.equal(
          WebhookSignature.verify(secret, each, each.body.replace(/"key":[0-9]+/, `"key":0`)),
          false,
          "a changed body does not verify",
        );
        assert.equal(each.contentType, "application/json");
        assert.equal(each.subscription, "all");
        assert.equal(each.attempt, 1);
      }
      assert.equal(hook.attempts.length, accepted.length, "nothing was sent twice");
      const stored = await db.rows("SELECT position FROM tenon_webhook_leases WHERE subscription = 'all'");
      // Every change up to the stored position was delivered (or is none of the subscription's).
      const position = Number(stored[0].position ?? stored[0].POSITION);
      assert.ok(
        position >= records[records.length - 1].position && position <= (await head()),
        `the position delivered is stored (${position})`,
      );
    });

    it("a subscription receives only its entities and its tenant's changes (and those of entities without a tenant)", async () => {
      const north = await receiver();
      const notices = await receiver();
      const hooks = webhooks([
        { name: "north", url: north.url, secret, tenant: "north", ...quick },
        { name: "notices", url: notices.url, secret, entities: ["HookNotice"], ...quick },
      ]);
      await hooks.start();
      const northern = parcel("northern");
      await insert(northern, "north");
      await insert(parcel("southern"), "south");
      const notice = Object.assign(new HookNotice(), { text: "for all" });
      await insert(notice);
      await north.waitUntil(() => north.accepted().length >= 2);
      await notices.waitUntil(() => notices.accepted().length >= 1);
      const marker = parcel("marker");
      await insert(marker, "north");
      await north.waitUntil(() => north.accepted().length >= 3);
      await hooks.stop();
      assert.deepEqual(
        north.accepted().map((each) => [each.record.entity, each.record.key]),
        [
          ["HookParcel", northern.id],
          ["HookNotice", notice.id],
          ["HookParcel", marker.id],
        ],
      );
      assert.deepEqual(
        notices.accepted().map((each) => [each.record.entity, each.record.key]),
        [["HookNotice", notice.id]],
      );
    });

    it("a failing receiver's event is retried, then set aside with the key's later events behind it; replay sends them in order", async () => {
      const hook = await receiver();
      hook.accepting = false;
      const hooks = webhooks([{ name: "failing", url: hook.url, secret, maxAttempts: 3, concurrency: 2, ...quick }]);
      await hooks.start();
      const writer = session();
      const a = parcel("a");
      await writer.insert(a);
      a.label = "a1";
      await writer.update(a);
      a.label = "a2";
      await writer.update(a);
      const b = parcel("b");
      await writer.insert(b);
      const letters = async () => hooks.deadLetters("failing");
      await waitFor(async () => (await hooks.deadLetterCount("failing")) === 4, "four dead letters");
      const set = await letters();
      assert.deepEqual(
        set.map((each) => [each.key, each.record.version, each.attempts]),
        [
          [a.id, 0, 3],
          [a.id, 1, 0],
          [a.id, 2, 0],
          [b.id, 0, 3],
        ],
      );
      assert.equal(set[0].lastError, "The receiver answered 500.");
      assert.equal(set[1].lastError, `Waiting behind event ${set[0].id} of the same key, which could not be delivered.`);
      assert.equal(set[0].replaying, false);
      const firstTries = hook.attempts.filter((each) => each.id === String(set[0].id));
      assert.deepEqual(
        firstTries.map((each) => each.attempt),
        [1, 2, 3],
        "three attempts of the same event id",
      );
      assert.ok(
        hook.attempts.every((each) => each.record.key !== a.id || each.record.version === 0),
        "a's later events were never sent while its first failed",
      );

      // The receiver is back: a new key goes straight through, a's next change waits behind a's dead letters.
      hook.accepting = true;
      const c = parcel("c");
      await writer.insert(c);
      a.label = "a3";
      await writer.update(a);
      await hook.waitUntil(() => hook.accepted().some((each) => each.record.key === c.id));
      await waitFor(async () => (await hooks.deadLetterCount("failing")) === 5, "a's newest change set aside too");

      assert.equal(await hooks.replay("failing"), 5);
      await waitFor(async () => (await hooks.deadLetterCount("failing")) === 0, "the dead letters replayed");
      const versions = versionsByKey(hook.accepted());
      assert.deepEqual(versions.get(`HookParcel:${a.id}`), [0, 1, 2, 3]);
      assert.deepEqual(versions.get(`HookParcel:${b.id}`), [0]);
      const ids = hook.accepted().map((each) => each.id);
      assert.equal(new Set(ids).size, ids.length, "no event was accepted twice");

      // Replayed, the key is no longer held back.
      a.label = "a4";
      await writer.update(a);
      await hook.waitUntil(() => hook.accepted().some((each) => each.record.key === a.id && each.record.version === 4));
      assert.equal(await hooks.deadLetterCount("failing"), 0);
    });

    it("a replay that fails again keeps the key's events set aside, and discard deletes them unsent", async () => {
      const hook = await receiver();
      hook.accepting = false;
      const hooks = webhooks([{ name: "stubborn", url: hook.url, secret, maxAttempts: 2, ...quick }]);
      await hooks.start();
      const writer = session();
      const p = parcel("p");
      await writer.insert(p);
      p.label = "p1";
      await writer.update(p);
      await waitFor(async () => (await hooks.deadLetterCount("stubborn")) === 2, "two dead letters");
      assert.equal(await hooks.replay("stubborn"), 2);
      await waitFor(async () => {
        const letters = await hooks.deadLetters("stubborn");
        return letters[0]?.attempts === 4 && letters.every((each) => !each.replaying);
      }, "the replay failed again");
      const [first, second] = await hooks.deadLetters("stubborn");
      assert.equal(first.replaying, false);
      assert.equal(second.replaying, false, "the key's later events wait again");
      assert.equal(await hooks.discard("stubborn", [first.id]), 1);
      assert.equal(await hooks.discard("stubborn"), 1);
      assert.equal(await hooks.deadLetterCount("stubborn"), 0);
      hook.accepting = true;
      p.label = "p2";
      await writer.update(p);
      await hook.waitUntil(() => hook.accepted().some((each) => each.record.version === 2));
    });

    it("two processes share a subscription: one delivers at a time, and the other takes over when it stops, losing nothing", async () => {
      const hook = await receiver();
      const subscription: WebhookSubscription = { name: "shared", url: hook.url, secret, ...quick };
      const one = webhooks([subscription], { owner: "one" });
      const two = webhooks([subscription], { owner: "two" });
      await Promise.all([one.start(), two.start()]);
      await waitFor(async () => one.delivering.length + two.delivering.length === 1, "one holder");
      const [holder, other] = one.delivering.length === 1 ? [one, two] : [two, one];
      const start = await head();
      const writer = session();
      for (let i = 0; i < 10; i++) await writer.insert(parcel(`shared ${i}`));
      await hook.waitUntil(() => hook.accepted().length >= 10);
      assert.deepEqual(other.delivering, [], "the other process never delivered meanwhile");
      await holder.stop();
      for (let i = 10; i < 20; i++) await writer.insert(parcel(`shared ${i}`));
      await waitFor(async () => other.delivering.length === 1, "the other takes over");
      await hook.waitUntil(() => hook.accepted().length >= 20);
      const expected = (await since(start)).filter((record) => record.entity === "HookParcel").map((record) => String(record.position));
      const ids = hook.accepted().map((each) => each.id);
      assert.equal(new Set(ids).size, ids.length, "no event was accepted twice");
      assert.deepEqual(
        ids.sort((x, y) => Number(x) - Number(y)),
        expected,
      );
      const leases = await db.rows("SELECT owner FROM tenon_webhook_leases WHERE subscription = 'shared'");
      assert.equal(String(leases[0].owner ?? leases[0].OWNER), other === one ? "one" : "two");
    });

    it("a lease left by a process that died is taken once it expires, not before; a process whose lease is taken stops", async () => {
      const hook = await receiver();
      const subscription: WebhookSubscription = { name: "expiring", url: hook.url, secret, ...quick };
      await db.exec(
        `INSERT INTO tenon_webhook_leases (subscription, owner, expires_at, position) VALUES ('expiring', 'dead', ${Date.now() + 1_500}, ${await head()})`,
      );
      const survivor = webhooks([subscription], { owner: "survivor" });
      await survivor.start();
      assert.deepEqual(survivor.delivering, [], "refused while the dead process's lease is valid");
      const written = parcel("written while nobody delivered");
      await insert(written);
      await waitFor(async () => survivor.delivering.length === 1, "the survivor takes the expired lease");
      await hook.waitUntil(() => hook.accepted().some((each) => each.record.key === written.id));
      // Its lease taken from it (by an operator, say), the survivor stops delivering at its next renewal.
      await db.exec(
        `UPDATE tenon_webhook_leases SET owner = 'operator', expires_at = ${Date.now() + 3_600_000} WHERE subscription = 'expiring'`,
      );
      await waitFor(async () => survivor.delivering.length === 0, "the survivor stops");
      const owners = await db.rows("SELECT owner FROM tenon_webhook_leases WHERE subscription = 'expiring'");
      assert.equal(String(owners[0].owner ?? owners[0].OWNER), "operator", "the survivor did not take the lease back");
    });

    it("stored subscriptions are delivered by processes that read them; a malformed stored one is reported and skipped", async () => {
      const hook = await receiver();
      const errors: string[] = [];
      const hooks = webhooks([{ name: "in-code", url: hook.url, secret, entities: ["HookNotice"], ...quick }], {
        stored: true,
        onError: (error) => errors.push(error.message),
      });
      await hooks.start();
      await hooks.saveSubscription({ name: "kept", url: hook.url, secret, entities: ["HookParcel"], ...quick });
      await waitFor(async () => hooks.delivering.includes("kept"), "the stored subscription delivered");
      const kept = parcel("kept");
      await insert(kept);
      await hook.waitUntil(() => hook.accepted().some((each) => each.subscription === "kept" && each.record.key === kept.id));
      await assert.rejects(
        hooks.saveSubscription({ name: "in-code", url: hook.url, secret }),
        (error: unknown) => error instanceof WebhookConfigurationError && error.field === "name",
      );
      await assert.rejects(
        hooks.saveSubscription({ name: "bad", url: "ftp://example.com/", secret }),
        (error: unknown) => error instanceof WebhookConfigurationError && error.field === "url" && /http: or https:/.test(error.message),
      );
      await db.exec(`INSERT INTO tenon_webhooks (name, definition) VALUES ('broken', '{"url": 5}')`);
      await waitFor(async () => errors.some((each) => each.includes('"broken"')), "the malformed subscription reported");
      assert.ok(!hooks.delivering.includes("broken"));
      assert.equal(await hooks.removeSubscription("kept"), true);
      await waitFor(async () => !hooks.delivering.includes("kept"), "the removed subscription stops");
      await assert.rejects(hooks.deadLetters("nobody"), (error: unknown) => error instanceof WebhookConfigurationError);
    });
  });
}

/** Waits until `condition` holds, checking every 20 ms, or fails after 60 s (a bound that tells "never" from "late"). */
async function waitFor(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`${what}: not within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
