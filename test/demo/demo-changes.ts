// The change feed through the demo: companies and orders stream their committed changes to a subscriber of the
// same tenant, in order, and nothing to another tenant's; the stream of both answers an EventSource's
// access_token; a malformed Last-Event-ID is a 400. Part of the end-to-end suite, so it runs on every engine
// (PostgreSQL wakes its streams by NOTIFY, the others by polling).
import assert from "node:assert/strict";
import { test } from "node:test";
import { openEventStream } from "../support/event-stream-client.js";
import type { DemoWriteHelpers } from "./demo-writes.js";

/** What these tests need besides the write helpers: the demo's port and the users' tokens. */
export interface DemoStreamAccess {
  readonly port: () => number;
  readonly token: (user: string) => string;
}

/** Defines the change feed tests inside the demo suite's `describe`. */
export function defineDemoChangeTests(h: DemoWriteHelpers, access: DemoStreamAccess): void {
  const stream = async (path: string, user: string, headers: Record<string, string> = {}) => {
    const opened = await openEventStream(access.port(), `/api${path}`, { Authorization: `Bearer ${access.token(user)}`, ...headers });
    assert.equal(opened.status, 200, opened.body);
    // The stream's first comment: from now on, every commit reaches it.
    for (let i = 0; i < 2000 && !opened.comments.includes("changes"); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    return opened;
  };

  test("change feed: a subscriber of companies receives another client's insert, update and delete in order, another tenant's none", async () => {
    const editor = await stream("/companies/changes", "editor");
    const rival = await stream("/companies/changes", "rival");
    const created = await h.ok("POST", "/companies", "admin", { name: "Streamed Ltd", creditLimit: "100.00" });
    const patched = await h.ok("PATCH", `/companies/${created.id}`, "admin", { versionId: created.versionId, creditLimit: "250.50" });
    await h.ok("DELETE", `/companies/${created.id}/${patched.versionId}`, "admin");
    const events = await editor.waitFor(3);
    assert.deepEqual(
      events.map((event) => [event.data.entity, event.data.key, event.data.action, event.data.version]),
      [
        ["Company", created.id, "insert", 0],
        ["Company", created.id, "update", 1],
        ["Company", created.id, "delete", 2],
      ],
    );
    assert.equal((events[1].data.data as Record<string, unknown>).creditLimit, "250.50");
    assert.equal((events[1].data.data as Record<string, unknown>).createdBy, "admin");
    assert.ok(Number(events[0].id) < Number(events[1].id) && Number(events[1].id) < Number(events[2].id));
    const own = await h.ok("POST", "/companies", "rival", { name: "Rival Streamed" });
    const [rivalEvent] = await rival.waitFor(1);
    editor.close();
    rival.close();
    assert.deepEqual([rivalEvent.data.key, rivalEvent.data.action], [own.id, "insert"]);
    assert.equal(rival.events.length, 1, "the rival saw none of north's changes");
    assert.ok(!editor.events.some((event) => event.data.key === own.id), "north saw none of the rival's");
  });

  test("change feed: /api/changes carries companies and orders to an EventSource's access_token, and resumes after Last-Event-ID", async () => {
    const opened = await openEventStream(access.port(), `/api/changes?access_token=${encodeURIComponent(access.token("editor"))}`);
    assert.equal(opened.status, 200, opened.body);
    for (let i = 0; i < 2000 && !opened.comments.includes("changes"); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    const [company] = await h.rows("SELECT ID AS id FROM Companies WHERE Name = 'Globex Industries'");
    const order = await h.ok("POST", "/orders", "editor", { number: "SO-STREAM-1", companyId: Number(company.id), lines: [] });
    const renamed = await h.ok("POST", "/companies", "editor", { name: "Streamed Two" });
    const events = await opened.waitFor(2);
    opened.close();
    assert.deepEqual(
      events.map((event) => [event.data.entity, event.data.key]),
      [
        ["Order", order.id],
        ["Company", renamed.id],
      ],
    );
    const resumed = await stream("/changes", "editor", { "Last-Event-ID": events[0].id });
    const [again] = await resumed.waitFor(1);
    resumed.close();
    assert.equal(again.id, events[1].id);
    const bad = await h.call("GET", "/companies/changes", { user: "editor", headers: { "Last-Event-ID": "seven" } });
    h.expectError(bad, 400, /Last-Event-ID/);
    const anonymous = await h.call("GET", "/changes?access_token=not-a-token", {});
    assert.equal(anonymous.status, 401);
  });
}
