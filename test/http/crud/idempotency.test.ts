// Idempotency-Key on POST {base} and POST {base}/bulk over HTTP, on a real SQLite file whose key table the
// schema tool created: a retry answers the first answer again and writes nothing, another body is a 422, a
// malformed key a 400, a failed write leaves the key free, and the window ends.
import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";
import { Schema } from "tenon";
import { SqliteDatabase } from "tenon/sqlite";
import type { Answer } from "../http-test-client.js";
import { hooks, seedWidgets, startCrudServer, type CrudServer } from "./crud-fixtures.js";

let server: CrudServer;

before(async () => {
  server = await startCrudServer(seedWidgets);
  const database = new SqliteDatabase({ filename: server.file });
  try {
    const diff = await Schema.apply(database, [], { idempotencyKeys: true });
    assert.deepEqual(
      diff.differences.map((difference) => [difference.kind, difference.table]),
      [["missingTable", "tenon_idempotency_keys"]],
    );
    assert.equal((await Schema.diff(database, [], { idempotencyKeys: true })).isEmpty, true);
  } finally {
    await database.close();
  }
});
after(async () => {
  await server.close();
});
afterEach(() => {
  delete hooks.writer;
});

type Row = Record<string, unknown>;

const named = (name: string): number => server.rows("SELECT COUNT(*) AS n FROM Widgets WHERE Name = ?", name)[0].n as number;
const post = (path: string, body: unknown, key?: string): Promise<Answer> =>
  server.call("POST", path, body, key === undefined ? {} : { "Idempotency-Key": key });

describe("an Idempotency-Key on POST", () => {
  test("a retry with the same key and body answers the first answer again and inserts nothing", async () => {
    const first = await post("/widgets", { name: "Once only", quantity: 3 }, "key-1");
    assert.equal(first.status, 200, first.text);
    const again = await post("/widgets", { name: "Once only", quantity: 3 }, "key-1");
    assert.equal(again.status, 200, again.text);
    assert.equal(again.text, first.text);
    assert.equal(named("Once only"), 1);
    const quoted = await post("/widgets", { name: "Once only", quantity: 3 }, '"key-1"');
    assert.equal(quoted.text, first.text, "a key in double quotes is the same key");
    assert.equal(named("Once only"), 1);
  });

  test("the same key with another body answers 422 and writes nothing", async () => {
    assert.equal((await post("/widgets", { name: "First body" }, "key-2")).status, 200);
    const dump = server.dump();
    const answer = await post("/widgets", { name: "Second body" }, "key-2");
    assert.equal(answer.status, 422, answer.text);
    assert.deepEqual(answer.json, {
      status: 422,
      message: "This Idempotency-Key was used with another request body; use a new key for a new request.",
      errors: [],
    });
    assert.equal(server.dump(), dump);
  });

  test("a key is the route's: the same key on another route or without one writes again", async () => {
    assert.equal((await post("/widgets", { name: "Scoped" }, "key-3")).status, 200);
    assert.equal((await post("/widgets/bulk", { insert: [{ name: "Scoped" }] }, "key-3")).status, 200);
    assert.equal((await post("/small-widgets", { name: "Scoped" }, "key-3")).status, 200);
    assert.equal((await post("/widgets", { name: "Scoped" })).status, 200);
    assert.equal(named("Scoped"), 4);
  });

  test("a write that fails leaves its key free: the corrected request with the same key is written", async () => {
    const failed = await post("/widgets", { name: "Late", email: "not an address" }, "key-4");
    assert.equal(failed.status, 422, failed.text);
    const fixed = await post("/widgets", { name: "Late", email: "late@example.com" }, "key-4");
    assert.equal(fixed.status, 200, fixed.text);
    assert.equal((await post("/widgets", { name: "Late", email: "late@example.com" }, "key-4")).text, fixed.text);
    assert.equal(named("Late"), 1);
  });

  test("a bulk retried with its key answers the first answer and writes nothing", async () => {
    const body = { insert: [{ name: "Bulk once" }, { name: "Bulk once" }], update: [{ id: 20, versionId: 0, name: "Twenty" }] };
    const first = await post("/widgets/bulk", body, "bulk-key");
    assert.equal(first.status, 200, first.text);
    const again = await post("/widgets/bulk", body, "bulk-key");
    assert.equal(again.text, first.text);
    assert.equal(named("Bulk once"), 2);
    assert.equal(server.rows("SELECT VersionID AS v FROM Widgets WHERE ID = 20")[0].v, 1);
  });

  test("ten retries sent at once insert one row and all answer it", async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, () => post("/widgets", { name: "Racing" }, "race-key")));
    assert.deepEqual(
      answers.map((answer) => answer.status),
      Array(10).fill(200),
    );
    assert.equal(new Set(answers.map((answer) => answer.text)).size, 1);
    assert.equal(named("Racing"), 1);
  });

  test("after the window the key is free again", async () => {
    hooks.writer = (writer) => {
      writer.idempotencyWindowSeconds = 0;
    };
    assert.equal((await post("/widgets", { name: "Windowed" }, "key-5")).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await post("/widgets", { name: "Windowed" }, "key-5");
    assert.equal(second.status, 200);
    assert.equal(named("Windowed"), 2);
  });

  test("a malformed or oversized key answers 400 and writes nothing", async () => {
    const dump = server.dump();
    for (const key of [
      "",
      "  ",
      "a".repeat(256),
      "two,keys",
      '"two,keys"',
      '"two keys"',
      "caf\u00e9",
      '"open',
      '"a"b"',
      "tab\there",
      '""',
    ]) {
      const answer = await post("/widgets", { name: "Bad key" }, key);
      assert.equal(answer.status, 400, `${JSON.stringify(key)}: ${answer.text}`);
      assert.equal(
        (answer.json as Row).message,
        "The Idempotency-Key header must be 1 to 255 visible ASCII characters without commas, optionally in double quotes.",
      );
    }
    assert.equal(server.dump(), dump);
    assert.equal((await post("/widgets", { name: "Long key" }, "k".repeat(255))).status, 200);
  });
});
