// Idempotency-Key through the demo: retries sent at once by many clients insert one row and all get its answer,
// on every engine (the key table is shared by every process through the database); another body is a 422, a
// malformed key a 400, and one user's key is not another's. Part of the end-to-end suite.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Answer } from "../http/http-test-client.js";
import type { DemoWriteHelpers } from "./demo-writes.js";

/** What these tests need besides the write helpers: a call with headers. */
export type DemoHeaderCall = (
  method: string,
  path: string,
  options: { user?: string; body?: unknown; headers?: Record<string, string> },
) => Promise<Answer>;

/** Defines the idempotency tests inside the demo suite's `describe`. */
export function defineDemoIdempotencyTests(h: DemoWriteHelpers, call: DemoHeaderCall): void {
  const count = async (name: string): Promise<number> =>
    Number((await h.rows(`SELECT COUNT(*) AS n FROM Companies WHERE Name = '${name}'`))[0].n);
  const keyed = (key: string, body: unknown, user = "editor", path = "/companies"): Promise<Answer> =>
    call("POST", path, { user, body, headers: { "Idempotency-Key": key } });

  test("idempotency: twelve retries of one keyed POST sent at once insert one company and all answer it", async () => {
    const key = `race-${Date.now()}-${Math.random()}`;
    const answers = await Promise.all(Array.from({ length: 12 }, () => keyed(key, { name: "Idempotent Racer" })));
    assert.deepEqual(
      answers.map((answer) => answer.status),
      Array(12).fill(200),
      answers.map((answer) => answer.text).join("\n"),
    );
    assert.equal(new Set(answers.map((answer) => answer.text)).size, 1);
    assert.equal(await count("Idempotent Racer"), 1);
    h.expectError(
      await keyed(key, { name: "Another body" }),
      422,
      "This Idempotency-Key was used with another request body; use a new key for a new request.",
    );
    assert.equal(await count("Another body"), 0);
    const admin = await keyed(key, { name: "Idempotent Racer" }, "admin");
    assert.equal(admin.status, 200, "a key is its user's");
    assert.equal(await count("Idempotent Racer"), 2);
  });

  test("idempotency: a keyed bulk retried at once writes once; a malformed key is a 400", async () => {
    const key = `bulk-${Date.now()}`;
    const body = { insert: [{ name: "Idempotent Bulk" }, { name: "Idempotent Bulk" }] };
    const answers = await Promise.all(Array.from({ length: 6 }, () => keyed(key, body, "editor", "/companies/bulk")));
    assert.deepEqual(
      answers.map((answer) => answer.status),
      Array(6).fill(200),
      answers.map((answer) => answer.text).join("\n"),
    );
    assert.equal(new Set(answers.map((answer) => answer.text)).size, 1);
    assert.equal(await count("Idempotent Bulk"), 2);
    h.expectError(await keyed("x".repeat(256), { name: "Bad key" }), 400);
    h.expectError(await keyed("a,b", { name: "Bad key" }), 400);
    h.expectError(await keyed('"a,b"', { name: "Bad key" }), 400);
    assert.equal(await count("Bad key"), 0);
  });
}
