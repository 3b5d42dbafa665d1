// Writes of the demo under contention and what their answers show: client-chosen ids, one id and version
// sent by many clients at once, and the state a write answer reports. Part of the end-to-end suite (run on
// SQLite, PostgreSQL and MariaDB against one demo process).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Answer } from "../http/http-test-client.js";

type Row = Record<string, unknown>;

/** What the end-to-end suite lends these tests. */
export interface DemoWriteHelpers {
  call(method: string, path: string, options?: { user?: string; body?: unknown; headers?: Record<string, string> }): Promise<Answer>;
  ok(method: string, path: string, user: string, body?: unknown): Promise<Row>;
  rows(sql: string): Promise<Record<string, unknown>[]>;
  expectError(answer: Answer, status: number, message?: string | RegExp): void;
}

/** Defines the write tests inside the demo suite's `describe`. */
export function defineDemoWriteTests(h: DemoWriteHelpers): void {
  /** A company of the seed (its ids depend on the engine: a Galera cluster steps them by its node count). */
  const anyCompany = async (): Promise<number> => Number(((await h.ok("GET", "/companies", "guest")).data as Row[])[0].id);
  const statuses = (answers: readonly Answer[]): string =>
    answers
      .map((answer) => answer.status)
      .sort()
      .join(",");

  test("a company id chosen just ahead of the sequence never makes a later insert fail", async () => {
    const probe = await h.ok("GET", "/companies/createnew", "editor");
    const next = Number(probe.id);
    for (const id of [next + 1, next + 2]) await h.ok("POST", "/companies", "editor", { id, name: `Chosen ${id}` });
    const drawn = [];
    for (let n = 0; n < 3; n++) drawn.push(await h.ok("POST", "/companies", "editor", { name: `Drawn ${n}` }));
    const ids = drawn.map((company) => Number(company.id));
    assert.equal(new Set([...ids, next + 1, next + 2]).size, 5, ids.join());
    for (const company of drawn) assert.equal((await h.ok("GET", `/companies/${company.id}`, "guest")).name, company.name);
  });

  test("twelve clients posting one chosen id at once: twelve 200s, each with an id drawn for it (tenant-scoped entities)", async () => {
    const id = 500_000 + Math.floor(Math.random() * 100_000);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, n) => h.call("POST", "/companies", { user: "editor", body: { id, name: `Racer ${n}` } })),
    );
    assert.equal(statuses(answers), Array(12).fill(200).join(","), answers.map((a) => a.text).join("\n"));
    assert.equal(new Set(answers.map((answer) => (answer.json as Row).id)).size, 12);
    assert.equal((await h.rows(`SELECT Name AS name FROM Companies WHERE ID = ${id}`)).length, 0);
  });

  test("an id outside the int32 range answers 400 and stores nothing", async () => {
    for (const id of [2147483648, -2147483649, 1e300]) {
      const answer = await h.call("POST", "/companies", { user: "editor", body: { id, name: "Out of range" } });
      assert.equal(answer.status, 400, answer.text);
    }
    assert.equal((await h.rows("SELECT ID FROM Companies WHERE Name = 'Out of range'")).length, 0);
    const top = await h.ok("POST", "/companies", "editor", { id: 2147483647, name: "At the top" });
    assert.ok(Number(top.id) < 1_000_000, "a chosen id of a tenant-scoped entity is replaced by a drawn one");
    const after = await h.ok("POST", "/companies", "editor", { name: "After the top" });
    assert.ok(Number(after.id) < 1_000_000, String(after.id));
    assert.equal((await h.ok("GET", `/companies/${after.id}`, "guest")).name, "After the top");
  });

  test("ten clients sending one id and version at once: one PUT wins, the others get 409", async () => {
    const company = await h.ok("POST", "/companies", "editor", { name: "Contended" });
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, n) => h.call("PUT", "/companies", { user: "editor", body: { ...company, name: `Contender ${n}` } })),
    );
    assert.equal(statuses(answers), `200,${Array(9).fill(409).join(",")}`, answers.map((a) => a.text).join("\n"));
    const winner = answers.find((a) => a.status === 200)?.json as Row;
    const [row] = await h.rows(`SELECT Name AS name, VersionID AS versionid FROM Companies WHERE ID = ${company.id}`);
    assert.equal(row.name, winner.name);
    assert.equal(Number(row.versionid), 1);
  });

  test("ten clients deleting one id and version at once: one DELETE wins, the others get 409", async () => {
    const company = await h.ok("POST", "/companies", "editor", { name: "Doomed" });
    const answers = await Promise.all(Array.from({ length: 10 }, () => h.call("DELETE", `/companies/${company.id}/0`, { user: "editor" })));
    assert.equal(statuses(answers), `200,${Array(9).fill(409).join(",")}`, answers.map((a) => a.text).join("\n"));
    const [row] = await h.rows(`SELECT VersionID AS versionid, DeletedAt AS deletedat FROM Companies WHERE ID = ${company.id}`);
    assert.equal(Number(row.versionid), 1);
    assert.notEqual(row.deletedat, null);
  });

  test("the answer to a PUT of an order shows its lines as committed: new quantities and versions", async () => {
    // The seeded company by name: on a Galera cluster the seeded keys are not 1, 2, 3.
    const [globex] = await h.rows("SELECT ID AS id FROM Companies WHERE Name = 'Globex Industries'");
    const created = await h.ok("POST", "/orders", "editor", {
      number: "SO-ANSWER-1",
      companyId: Number(globex.id),
      lines: [
        { product: "Anvil", quantity: 3, price: "10.25" },
        { product: "Rope", quantity: 1, price: "2.00" },
      ],
    });
    const lines = created.lines as Row[];
    const updated = await h.ok("PUT", "/orders", "editor", {
      ...created,
      lines: [{ ...lines[0], quantity: 7 }, lines[1]],
    });
    const answered = (updated.lines as Row[]).sort((a, b) => Number(a.id) - Number(b.id));
    const stored = await h.rows(
      `SELECT ID AS id, Quantity AS quantity, VersionID AS versionid FROM OrderLines WHERE OrderID = ${created.id} ORDER BY ID`,
    );
    assert.deepEqual(
      answered.map((line) => [Number(line.id), line.quantity, line.versionId]),
      stored.map((row) => [Number(row.id), Number(row.quantity), Number(row.versionid)]),
    );
    assert.equal(answered.find((line) => line.id === lines[0].id)?.quantity, 7);
    // A client that edits from the answer is not refused with a false 409.
    const again = await h.ok("PUT", "/orders", "editor", { ...updated, lines: [{ ...answered[0], quantity: 8 }, answered[1]] });
    assert.equal((again.lines as Row[]).find((line) => line.id === lines[0].id)?.quantity, 8);
  });

  test("a PATCH changes only the properties it carries, keeps an order's lines, and refuses stale, null and guests", async () => {
    const company = await h.ok("POST", "/companies", "editor", {
      name: "Patchable",
      email: "patch@example.com",
      vatNumber: "DE12345",
      creditLimit: "100.00",
    });
    const columns = "Name AS name, Email AS email, VatNumber AS vat, CreditLimit AS credit, VersionID AS version, CreatedBy AS createdby";
    const select = `SELECT ${columns} FROM Companies WHERE ID = ${company.id}`;
    const [before] = await h.rows(select);
    const patched = await h.ok("PATCH", `/companies/${company.id}`, "editor", { versionId: 0, creditLimit: "250.50", email: null });
    assert.equal(patched.creditLimit, "250.50");
    assert.equal(patched.name, "Patchable");
    assert.equal(patched.versionId, 1);
    const [after] = await h.rows(select);
    // SQLite stores a decimal scaled (cents), the others as written: the ratio is what every engine shares.
    assert.ok(Math.abs(Number(after.credit) / Number(before.credit) - 2.505) < 1e-9, `${before.credit} -> ${after.credit}`);
    assert.deepEqual({ ...after, credit: 0, version: Number(after.version) }, { ...before, email: null, credit: 0, version: 1 });
    const unchanged = await h.rows(select);
    h.expectError(await h.call("PATCH", `/companies/${company.id}`, { user: "editor", body: { versionId: 0, name: "Stale" } }), 409);
    h.expectError(await h.call("PATCH", `/companies/${company.id}`, { user: "editor", body: { versionId: 1, name: null } }), 422);
    h.expectError(await h.call("PATCH", `/companies/${company.id}`, { user: "editor", body: '{"versionId": 1, ' }), 400);
    h.expectError(await h.call("PATCH", `/companies/${company.id}`, { user: "guest", body: { versionId: 1, name: "Guest" } }), 403);
    h.expectError(await h.call("PATCH", "/companies/2147483000", { user: "editor", body: { versionId: 0, name: "Ghost" } }), 404);
    assert.deepEqual(await h.rows(select), unchanged);

    const [globex] = await h.rows("SELECT ID AS id FROM Companies WHERE Name = 'Globex Industries'");
    const order = await h.ok("POST", "/orders", "editor", {
      number: "SO-PATCH-1",
      companyId: Number(globex.id),
      lines: [
        { product: "Anvil", quantity: 3, price: "10.25" },
        { product: "Rope", quantity: 1, price: "2.00" },
      ],
    });
    const linesOf = `SELECT ID AS id, Product AS product, Quantity AS quantity, VersionID AS versionid FROM OrderLines WHERE OrderID = ${order.id} ORDER BY ID`;
    const lines = await h.rows(linesOf);
    // Sent as the README and docs/crud.md tell clients to send a merge patch.
    const patch = await h.call("PATCH", `/orders/${order.id}`, {
      user: "editor",
      body: { versionId: order.versionId, number: "SO-PATCH-2" },
      headers: { "Content-Type": "application/merge-patch+json" },
    });
    assert.equal(patch.status, 200, patch.text);
    const renumbered = patch.json as Row;
    assert.equal(renumbered.number, "SO-PATCH-2");
    assert.equal((renumbered.lines as Row[]).length, 2);
    assert.deepEqual(await h.rows(linesOf), lines, "a patch without lines leaves the lines as they were");
  });

  test("an order with 300 lines is written in a few statements: POST, then a PUT that changes, adds and removes lines", async () => {
    const lines = Array.from({ length: 300 }, (_, i) => ({ product: `Bolt ${i}`, quantity: 1 + (i % 3), price: "0.10" }));
    const created = await h.ok("POST", "/orders", "editor", { number: "SO-BIG-1", companyId: await anyCompany(), lines });
    const [count] = await h.rows(`SELECT COUNT(*) AS n FROM OrderLines WHERE OrderID = ${created.id}`);
    assert.equal(Number(count.n), 300);
    const sent = (created.lines as Row[]).sort((a, b) => Number(a.id) - Number(b.id));
    const kept = sent.slice(0, 200).map((line, i) => (i % 2 === 0 ? { ...line, quantity: 9 } : line));
    const added = Array.from({ length: 30 }, (_, i) => ({ product: `Nut ${i}`, quantity: 2, price: "0.05" }));
    const updated = await h.ok("PUT", "/orders", "editor", { ...created, lines: [...kept, ...added] });
    const stored = await h.rows(
      `SELECT ID AS id, Quantity AS quantity, VersionID AS versionid FROM OrderLines WHERE OrderID = ${created.id}`,
    );
    assert.equal(stored.length, 230);
    const answered = updated.lines as Row[];
    assert.equal(answered.length, 230);
    const byId = new Map(stored.map((row) => [Number(row.id), row]));
    for (const line of answered) {
      const row = byId.get(Number(line.id));
      assert.ok(row !== undefined, `line ${line.id} answered but not stored`);
      assert.deepEqual([line.quantity, line.versionId], [Number(row.quantity), Number(row.versionid)]);
    }
    assert.equal(answered.filter((line) => line.quantity === 9).length, 100);
  });

  test("a body whose lines exceed the detail bound answers 400 naming the property, and nothing is written", async () => {
    const lines = Array.from({ length: 10001 }, () => ({ product: "x", quantity: 1, price: "1.00" }));
    const answer = await h.call("POST", "/orders", { user: "editor", body: { number: "SO-TOO-MANY", companyId: 1, lines } });
    h.expectError(answer, 400, "Property lines carries 10001 items; at most 10000 are accepted in one body.");
    assert.equal((await h.rows("SELECT ID FROM Orders WHERE Number = 'SO-TOO-MANY'")).length, 0);
  });
}
