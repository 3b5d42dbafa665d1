// Malformed webhook configuration is a WebhookConfigurationError naming the subscription and the field, when
// the ChangeWebhooks is made (nothing is started); and the retry delays grow, stay bounded and are jittered.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import {
  ChangeFeed,
  ChangeWebhooks,
  type ChangeWebhooksOptions,
  Column,
  PrimaryKey,
  Sequence,
  Table,
  Type,
  WebhookConfigurationError,
  WebhookSignature,
} from "tenon";
import { SqliteDatabase } from "tenon/sqlite";
import { checkSubscription, retryDelay } from "../../src/changes/webhook-subscription.js";

@Table("Crates")
@Sequence("CratesID")
@ChangeFeed()
class Crate {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
}

@Table("Pallets")
@Sequence("PalletsID")
class Pallet {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
}

const directory = mkdtempSync(join(tmpdir(), "tenon-webhook-config-"));
const database = new SqliteDatabase({ filename: join(directory, "config.sqlite") });
after(async () => {
  await database.close();
  rmSync(directory, { recursive: true, force: true });
});

const secret = WebhookSignature.newSecret();
const valid = { name: "orders", url: "https://hooks.example.com/tenon", secret };

function refused(options: Partial<ChangeWebhooksOptions>, subscription: string, field: string, message: RegExp): void {
  assert.throws(
    () => new ChangeWebhooks(database, { feeds: [Crate], ...options }),
    (error: unknown) => {
      assert.ok(error instanceof WebhookConfigurationError, String(error));
      assert.equal(error.subscription, subscription);
      assert.equal(error.field, field);
      assert.match(error.message, message);
      return true;
    },
  );
}

describe("webhook configuration", () => {
  test("a well-formed subscription is accepted with its defaults, and nothing starts", () => {
    const hooks = new ChangeWebhooks(database, { feeds: [Crate], subscriptions: [valid] });
    assert.deepEqual(hooks.delivering, []);
    const checked = checkSubscription(valid, new Set(["Crate"]));
    assert.deepEqual(
      { ...checked, key: checked.key.length, entities: [...checked.entities] },
      {
        name: "orders",
        url: "https://hooks.example.com/tenon",
        secret,
        key: 32,
        entities: ["Crate"],
        tenant: undefined,
        maxAttempts: 8,
        initialDelayMs: 1_000,
        maxDelayMs: 300_000,
        timeoutMs: 10_000,
        concurrency: 4,
      },
    );
  });

  test("a malformed name, URL or secret is refused naming the subscription and the field", () => {
    for (const name of ["", "has space", "-leading", "x".repeat(101), "naïve"])
      refused({ subscriptions: [{ ...valid, name }] }, name, "name", /must be 1 to 100 letters/);
    refused({ subscriptions: [{ ...valid, name: 7 as unknown as string }] }, "7", "name", /must be 1 to 100/);
    for (const url of [
      "",
      "not a url",
      "/relative/path",
      "ftp://example.com/",
      "https://user:pw@example.com/",
      "https://example.com/#part",
      "javascript:alert(1)",
    ])
      refused({ subscriptions: [{ ...valid, url }] }, "orders", "url", /absolute http: or https: URL/);
    const short = `whsec_${Buffer.alloc(16, 1).toString("base64")}`;
    const long = `whsec_${Buffer.alloc(65, 1).toString("base64")}`;
    for (const bad of ["", "secret", secret.slice(6), `whsec_${"!".repeat(44)}`, short, long, `${secret}=`, `${secret} `])
      refused({ subscriptions: [{ ...valid, secret: bad }] }, "orders", "secret", /"whsec_" followed by the base64 of 24 to 64/);
  });

  test("entities must be distinct names of the feeds; the feeds must have @ChangeFeed", () => {
    refused({ subscriptions: [{ ...valid, entities: [] }] }, "orders", "entities", /non-empty list of distinct/);
    refused({ subscriptions: [{ ...valid, entities: ["Crate", "Crate"] }] }, "orders", "entities", /distinct/);
    refused(
      { subscriptions: [{ ...valid, entities: ["Pallet"] }] },
      "orders",
      "entities",
      /names the entity "Pallet", which is none of the feeds/,
    );
    refused({ subscriptions: [{ ...valid, entities: "Crate" as unknown as string[] }] }, "orders", "entities", /non-empty list/);
    refused({ feeds: [] }, "", "feeds", /at least one entity class with @ChangeFeed/);
    refused({ feeds: [Crate, Pallet] }, "", "feeds", /Pallet in feeds has no @ChangeFeed/);
  });

  test("numbers out of range, delays out of order, unknown fields and duplicate names are refused", () => {
    const numbers: [string, unknown][] = [
      ["maxAttempts", 0],
      ["maxAttempts", 101],
      ["maxAttempts", 2.5],
      ["maxAttempts", "3"],
      ["initialDelayMs", 0],
      ["maxDelayMs", 86_400_001],
      ["timeoutMs", -1],
      ["timeoutMs", Number.NaN],
      ["concurrency", 65],
    ];
    for (const [field, value] of numbers)
      refused({ subscriptions: [{ ...valid, [field]: value }] }, "orders", field, new RegExp(`needs ${field} as a whole number`));
    refused({ subscriptions: [{ ...valid, initialDelayMs: 5_000, maxDelayMs: 1_000 }] }, "orders", "maxDelayMs", /at least as large/);
    refused({ subscriptions: [{ ...valid, tenant: "" }] }, "orders", "tenant", /tenant of 1 to 100 characters/);
    refused({ subscriptions: [{ ...valid, retries: 3 } as typeof valid] }, "orders", "retries", /unknown field "retries"/);
    refused({ subscriptions: [valid, { ...valid }] }, "orders", "name", /Two webhook subscriptions are named "orders"/);
    refused({ subscriptions: [null as unknown as typeof valid] }, "undefined", "", /is not an object/);
    refused({ leaseMs: 100 }, "", "leaseMs", /leaseMs as a whole number from 500/);
    refused({ pollMs: 0 }, "", "pollMs", /pollMs as a whole number from 10/);
  });

  test("WebhookSignature.sign refuses a malformed secret", () => {
    assert.throws(() => WebhookSignature.sign("whsec_short", "1", 0, "{}"), WebhookConfigurationError);
  });
});

describe("retry delays", () => {
  const subscription = checkSubscription({ ...valid, initialDelayMs: 1_000, maxDelayMs: 30_000 }, new Set(["Crate"]));

  test("each failure doubles the delay up to the longest, and the jitter keeps it between half and all of it", () => {
    const low = [1, 2, 3, 4, 5, 6, 7, 30].map((failed) => retryDelay(subscription, failed, () => 0));
    const high = [1, 2, 3, 4, 5, 6, 7, 30].map((failed) => retryDelay(subscription, failed, () => 1));
    assert.deepEqual(low, [500, 1_000, 2_000, 4_000, 8_000, 15_000, 15_000, 15_000]);
    assert.deepEqual(high, [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
    const drawn = new Set(Array.from({ length: 50 }, () => retryDelay(subscription, 3)));
    assert.ok(drawn.size > 1, "the jitter spreads the delays");
    for (const delay of drawn) assert.ok(delay >= 2_000 && delay <= 4_000, String(delay));
  });
});
