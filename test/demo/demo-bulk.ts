// POST <entity>/bulk through the demo: companies and orders with lines inserted, updated and deleted in one
// transaction, a failing item rolling all back with its operation and index. Part of the end-to-end suite
// (run on SQLite, PostgreSQL and MariaDB against one demo process).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { DemoWriteHelpers } from "./demo-writes.js";

type Row = Record<string, unknown>;

/** Defines the bulk tests inside the demo suite's `describe`. */
export function defineDemoBulkTests(h: DemoWriteHelpers, companyIds: () => readonly number[]): void {
  const count = async (sql: string): Promise<number> => Number((await h.rows(sql))[0].n);

  test("bulk: companies inserted, updated and deleted in one request; a guest may not, an item failing writes nothing", async () => {
    const seeded = await h.ok("POST", "/companies", "editor", { name: "Bulk target" });
    const doomed = await h.ok("POST", "/companies", "editor", { name: "Bulk doomed" });
    const answer = await h.ok("POST", "/companies/bulk", "editor", {
      insert: [{ name: "Bulk one", creditLimit: "10.50" }, { name: "Bulk two" }],
      update: [{ ...seeded, name: "Bulk target renamed" }],
      delete: [{ id: doomed.id, versionId: 0 }],
    });
    const inserted = answer.inserted as Row[];
    assert.deepEqual(
      inserted.map((company) => [company.name, company.creditLimit, company.createdBy, company.versionId]),
      [
        ["Bulk one", "10.50", "editor", 0],
        ["Bulk two", null, "editor", 0],
      ],
    );
    assert.equal((answer.updated as Row[])[0].name, "Bulk target renamed");
    assert.equal((answer.updated as Row[])[0].versionId, 1);
    assert.deepEqual(answer.deleted, [doomed.id]);
    assert.equal(await count(`SELECT COUNT(*) AS n FROM Companies WHERE Name IN ('Bulk one', 'Bulk two')`), 2);
    assert.equal(await count(`SELECT COUNT(*) AS n FROM Companies WHERE ID = ${doomed.id} AND DeletedAt IS NOT NULL`), 1);

    h.expectError(await h.call("POST", "/companies/bulk", { user: "guest", body: { insert: [{ name: "Guest" }] } }), 403);
    const before = await count("SELECT COUNT(*) AS n FROM Companies");
    const failed = await h.call("POST", "/companies/bulk", {
      user: "editor",
      body: { insert: [{ name: "Never one" }, { name: "Never two", vatNumber: "bad" }], delete: [{ id: inserted[0].id, versionId: 0 }] },
    });
    h.expectError(failed, 422);
    assert.equal((failed.json as Row).operation, "insert");
    assert.equal((failed.json as Row).index, 1);
    assert.deepEqual(
      ((failed.json as Row).errors as Row[]).map((error) => error.property),
      ["vatNumber"],
    );
    const stale = await h.call("POST", "/companies/bulk", {
      user: "editor",
      body: { insert: [{ name: "Never three" }], update: [{ ...seeded, name: "Stale" }] },
    });
    h.expectError(stale, 409);
    assert.deepEqual([(stale.json as Row).operation, (stale.json as Row).index], ["update", 0]);
    assert.equal(await count("SELECT COUNT(*) AS n FROM Companies"), before, "nothing of a failed bulk is written");
    h.expectError(
      await h.call("POST", "/companies/bulk", { user: "editor", body: { insert: Array.from({ length: 1001 }, () => ({ name: "x" })) } }),
      400,
      "The bulk body carries 1001 items; at most 1000 are accepted in one request.",
    );
  });

  test("bulk: orders with lines, where an update's changed lines go through the batched UPDATE", async () => {
    const company = companyIds()[0];
    const lines = (n: number): Row[] => Array.from({ length: n }, (_, i) => ({ product: `Part ${i}`, quantity: i + 1, price: "2.00" }));
    const created = await h.ok("POST", "/orders/bulk", "editor", {
      insert: [
        { number: "SO-BULK-1", companyId: company, lines: lines(3) },
        { number: "SO-BULK-2", companyId: company, lines: lines(250) },
      ],
    });
    const [first, second] = created.inserted as Row[];
    assert.equal(first.total, "12.00");
    assert.equal((second.lines as Row[]).length, 250);
    const changed = (second.lines as Row[]).map((line, i) => (i % 2 === 0 ? { ...line, quantity: 1, price: "1.00" } : line));
    const updated = await h.ok("POST", "/orders/bulk", "editor", {
      update: [{ ...second, lines: changed }],
      delete: [{ id: first.id, versionId: 0 }],
    });
    const order = (updated.updated as Row[])[0];
    assert.equal(order.versionId, 1);
    assert.equal(await count(`SELECT COUNT(*) AS n FROM OrderLines WHERE OrderID = ${second.id} AND VersionID = 1`), 125);
    assert.equal(await count(`SELECT COUNT(*) AS n FROM OrderLines WHERE OrderID = ${second.id} AND Quantity = 1`), 125);
    assert.equal(await count(`SELECT COUNT(*) AS n FROM Orders WHERE ID = ${first.id}`), 0);
    assert.equal(await count(`SELECT COUNT(*) AS n FROM OrderLines WHERE OrderID = ${first.id}`), 0);
    // sum over odd i of (i + 1) * 2.00 plus 125 * 1.00
    const expected = Array.from({ length: 250 }, (_, i) => (i % 2 === 0 ? 1 : (i + 1) * 2)).reduce((a, b) => a + b, 0);
    assert.equal(order.total, `${expected}.00`);
  });
}
