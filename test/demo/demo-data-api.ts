// The data-API features of issue 20 in the demo, end to end on each engine: entity tags with If-None-Match
// and If-Match, and keyset pages of select. Part of the end-to-end suite (one demo process per engine).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Answer } from "../http/http-test-client.js";

type Row = Record<string, unknown>;
type Page = { count?: number; data: Row[]; nextCursor?: string };

/** What the end-to-end suite lends these tests. */
export interface DemoDataApiHelpers {
  call(method: string, path: string, options?: { user?: string; body?: unknown; headers?: Record<string, string> }): Promise<Answer>;
  ok(method: string, path: string, user: string, body?: unknown): Promise<Row>;
  expectError(answer: Answer, status: number, message?: string | RegExp): void;
}

/** Defines the data-API tests inside the demo suite's `describe`. */
export function defineDemoDataApiTests(h: DemoDataApiHelpers): void {
  test("an employee's ETag changes when its company is renamed; If-None-Match answers 304, If-Match guards PATCH", async () => {
    const employee = ((await h.ok("GET", "/employees", "guest")).data as Row[])[0];
    const read = await h.call("GET", `/employees/${employee.id}`, { user: "guest" });
    assert.equal(read.status, 200, read.text);
    const tag = read.headers.etag as string;
    assert.match(tag, new RegExp(`^"${employee.id}-${employee.versionId}-[0-9a-f]{8}"$`));
    const cached = await h.call("GET", `/employees/${employee.id}`, { user: "guest", headers: { "If-None-Match": tag } });
    assert.equal(cached.status, 304, cached.text);
    assert.equal(cached.text, "");

    const companyId = employee.companyId as number;
    const companyTag = (await h.call("GET", `/companies/${companyId}`, { user: "guest" })).headers.etag as string;
    const company = await h.ok("GET", `/companies/find/${companyId}`, "guest");
    assert.equal(companyTag, `"${companyId}-${company.versionId}"`);
    const renamed = await h.call("PATCH", `/companies/${companyId}`, {
      user: "editor",
      body: { name: `${company.name as string} (renamed)` },
      headers: { "If-Match": companyTag },
    });
    assert.equal(renamed.status, 200, renamed.text);
    h.expectError(
      await h.call("PATCH", `/companies/${companyId}`, { user: "editor", body: { name: "Stale" }, headers: { "If-Match": companyTag } }),
      412,
      /does not match the If-Match entity tag/,
    );
    const after = await h.call("GET", `/employees/${employee.id}`, { user: "guest", headers: { "If-None-Match": tag } });
    assert.equal(after.status, 200, "the company's new version makes the employee's tag stale");
    assert.notEqual(after.headers.etag, tag);
    await h.ok("PATCH", `/companies/${companyId}`, "editor", { versionId: (renamed.json as Row).versionId, name: company.name });
  });

  test("DELETE {base}/{id} with If-Match is guarded like DELETE {base}/{id}/{version}, and needs the header", async () => {
    const created = await h.ok("POST", "/companies", "editor", { name: "Tagged for deletion" });
    const tag = `"${created.id}-${created.versionId}"`;
    h.expectError(await h.call("DELETE", `/companies/${created.id}`, { user: "guest", headers: { "If-Match": tag } }), 403);
    h.expectError(await h.call("DELETE", `/companies/${created.id}`, { user: "editor" }), 428);
    h.expectError(await h.call("DELETE", `/companies/${created.id}`, { user: "editor", headers: { "If-Match": "12-0" } }), 400);
    const deleted = await h.call("DELETE", `/companies/${created.id}`, { user: "editor", headers: { "If-Match": tag } });
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(deleted.json, { id: created.id, deleted: true });
  });

  test("a keyset walk of the employees by e-mail reads every one once, NULL first, and a forged cursor is a 400", async () => {
    const orderBy = [{ columnName: "email", direction: "ASC" }];
    const all = (await h.ok("POST", "/employees/select", "guest", { orderBy })) as unknown as Page;
    const ids: unknown[] = [];
    let body: Row = { orderBy, limit: 2 };
    for (let n = 0; n < 100; n++) {
      const page = (await h.ok("POST", "/employees/select", "guest", body)) as unknown as Page;
      if (n > 0) assert.equal(page.count, undefined);
      ids.push(...page.data.map((row) => row.id));
      if (page.nextCursor === undefined) break;
      body = { orderBy, limit: 2, after: page.nextCursor };
    }
    assert.deepEqual(
      ids,
      all.data.map((row) => row.id),
    );
    const emails = all.data.map((row) => row.email);
    const firstText = emails.findIndex((email) => email !== null);
    assert.ok(
      emails.slice(firstText).every((email) => email !== null),
      "NULL sorts first",
    );
    const forged = Buffer.from(JSON.stringify(["email+,id+", "a@b.c", "1; DROP TABLE Employees"])).toString("base64url");
    h.expectError(
      await h.call("POST", "/employees/select", { user: "guest", body: { orderBy, after: forged } }),
      400,
      /carries a value for id/,
    );
  });
}
