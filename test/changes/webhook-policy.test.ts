// A webhook subscription with a caller receives the changes of an entity under a `@Policy` as that caller may hear of
// them (docs/policies.md): only rows its rules grant it for `changes`, without the members it may not read; one
// without a caller receives every change. On a real SQLite file, with real receivers on sockets.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  ChangeFeed,
  ChangeWebhooks,
  ClaimType,
  type ClaimsOf,
  Column,
  Context,
  declareClaims,
  Policy,
  PrimaryKey,
  Schema,
  Sequence,
  Table,
  Type,
  VersionColumn,
  WebhookConfigurationError,
  WebhookSignature,
} from "tenon";
import { SqliteDatabase } from "tenon/sqlite";
import { WebhookReceiver } from "../support/webhook-receiver.js";

const claims = declareClaims({ region: ClaimType.string });

/** An item of a region, whose note only admins read. */
@Table("PolicyHookItems")
@Sequence("PolicyHookItemsID")
@ChangeFeed()
@Policy<PolicyHookItem, ClaimsOf<typeof claims>>(claims, (caller) => ({
  rules: [{ areas: ["admin"] }, { rows: { region: caller.claims.region } }],
  members: { note: { read: { areas: ["admin"] } } },
}))
class PolicyHookItem {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Region", Type.varchar(2)) region = "EU";
  @Column("Label", Type.varchar(50)) label = "";
  @Column("Note", Type.varchar(50).orNull) note: string | null = null;
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

describe("webhooks under a policy", () => {
  let directory = "";
  let database: SqliteDatabase;
  const secret = WebhookSignature.newSecret();

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), "tenon-webhook-policy-"));
    database = new SqliteDatabase({ filename: join(directory, "hooks.sqlite") });
    await Schema.apply(database, [PolicyHookItem], { changeFeed: true, webhooks: true });
  });
  after(async () => {
    await database.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it("a subscription with a caller receives only its rows' changes, without the members it may not read", async () => {
    const everything = await WebhookReceiver.start(secret);
    const europe = await WebhookReceiver.start(secret);
    const quick = { initialDelayMs: 10, maxDelayMs: 40, timeoutMs: 5_000 } as const;
    const hooks = new ChangeWebhooks(database, {
      feeds: [PolicyHookItem],
      pollMs: 50,
      subscriptions: [
        { name: "everything", url: everything.url, secret, ...quick },
        {
          name: "europe",
          url: europe.url,
          secret,
          caller: { username: "hook", areas: ["partner"], tenant: "", claims: { region: "EU" } },
          ...quick,
        },
      ],
    });
    try {
      await hooks.start();
      await using writer = new Context(database);
      writer.unscoped = true;
      const eu = Object.assign(new PolicyHookItem(), { region: "EU", label: "Berlin", note: "secret note" });
      const us = Object.assign(new PolicyHookItem(), { region: "US", label: "Boston", note: "other note" });
      await writer.insert(eu);
      await writer.insert(us);
      us.region = "EU";
      us.label = "Boston, now in Europe";
      await writer.update(us);
      await everything.waitUntil(() => everything.accepted().length >= 3);
      await europe.waitUntil(() => europe.accepted().length >= 2);
      const sentinel = Object.assign(new PolicyHookItem(), { region: "EU", label: "Sentinel" });
      await writer.insert(sentinel);
      await europe.waitUntil(() => europe.accepted().length >= 3);
      await everything.waitUntil(() => everything.accepted().length >= 4);
      const sent = europe.accepted().sort((a, b) => Number(a.id) - Number(b.id));
      assert.deepEqual(
        sent.map((each) => [each.record.key, each.record.action]),
        [
          [eu.id, "insert"],
          [us.id, "update"],
          [sentinel.id, "insert"],
        ],
        "the US row's insert never went to Europe",
      );
      for (const each of sent) {
        assert.equal("note" in (each.record.data ?? {}), false, "the note is the admins'");
        assert.equal(each.verified, true);
      }
      assert.equal(everything.accepted().find((each) => each.record.key === eu.id)?.record.data?.note, "secret note");
    } finally {
      await hooks.stop();
      await everything.stop();
      await europe.stop();
    }
  });

  it("a caller that is not one is refused when the subscription is checked", () => {
    for (const caller of [{ areas: [] }, { username: "x", areas: "admin" }, { username: "x", areas: [], claims: [] }, "x"]) {
      assert.throws(
        () =>
          new ChangeWebhooks(database, {
            feeds: [PolicyHookItem],
            subscriptions: [{ name: "bad", url: "http://127.0.0.1:9/", secret, caller: caller as never }],
          }),
        (error: unknown) => error instanceof WebhookConfigurationError && /needs a caller/.test(error.message),
      );
    }
  });
});
