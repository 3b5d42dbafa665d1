// Streamed exports and NDJSON imports through the demo (docs/crud.md): a select answered as NDJSON and as CSV
// holds what the JSON select holds, an NDJSON import writes its lines or, with a bad line, nothing. Part of the
// end-to-end suite (run on SQLite, PostgreSQL and MariaDB against one demo process).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { DemoWriteHelpers } from "./demo-writes.js";

type Row = Record<string, unknown>;

/** Defines the streaming tests inside the demo suite's `describe`. */
export function defineDemoStreamingTests(h: DemoWriteHelpers): void {
  const count = async (sql: string): Promise<number> => Number((await h.rows(sql))[0].n);

  test("streaming: a guest exports employees as NDJSON and companies as CSV, holding what the JSON select holds", async () => {
    const body = { orderBy: [{ columnName: "lastName" }] };
    const json = (await h.ok("POST", "/employees/select", "guest", { ...body, limit: 1000 })).data as Row[];
    const ndjson = await h.call("POST", "/employees/select", { user: "guest", body, headers: { Accept: "application/x-ndjson" } });
    assert.equal(ndjson.status, 200, ndjson.text);
    assert.equal(ndjson.headers["content-type"], "application/x-ndjson; charset=utf-8");
    assert.deepEqual(
      ndjson.text
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as Row),
      json,
    );
    const companies = (await h.ok("POST", "/companies/select", "guest", { limit: 1000 })).data as Row[];
    const csv = await h.call("POST", "/companies/select", { user: "guest", body: {}, headers: { Accept: "text/csv" } });
    assert.equal(csv.status, 200, csv.text);
    const rows = csv.text.split("\r\n");
    assert.equal(
      rows[0],
      "id,name,region,email,vatNumber,creditLimit,createdAt,createdBy,updatedAt,updatedBy,deletedAt,deletedBy,versionId",
    );
    assert.equal(rows.at(-1), "", "the last row ends with CRLF");
    assert.equal(rows.length - 2, companies.length);
    assert.deepEqual(
      rows.slice(1, -1).map((row) => Number(row.split(",")[0])),
      companies.map((company) => company.id),
    );
  });

  test("streaming: an aggregate of orders by company streams as CSV the groups its JSON answers", async () => {
    const body = {
      groupBy: ["company.name"],
      metrics: [
        { fn: "count", as: "orders" },
        { fn: "sum", column: "total", as: "total" },
      ],
    };
    const json = (await h.ok("POST", "/orders/aggregate", "guest", body)).data as Row[];
    const csv = await h.call("POST", "/orders/aggregate", { user: "guest", body, headers: { Accept: "text/csv" } });
    assert.equal(csv.status, 200, csv.text);
    assert.equal(
      csv.text,
      `company.name,orders,total\r\n${json.map((group) => `${group["company.name"]},${group.orders},${group.total}\r\n`).join("")}`,
    );
  });

  test("streaming: an NDJSON import writes its lines for an editor; a bad line writes nothing; a guest may not", async () => {
    const before = await count("SELECT COUNT(*) AS n FROM Companies");
    const ndjson = { "Content-Type": "application/x-ndjson" };
    const good = await h.call("POST", "/companies/bulk", {
      user: "editor",
      body: '{"name":"Imported one"}\n{"name":"Imported two","creditLimit":"750.00"}\n',
      headers: ndjson,
    });
    assert.equal(good.status, 200, good.text);
    assert.deepEqual(good.json, { imported: 2 });
    assert.equal(await count("SELECT COUNT(*) AS n FROM Companies WHERE Name LIKE 'Imported %' AND CreatedBy = 'editor'"), 2);
    const bad = await h.call("POST", "/companies/bulk", {
      user: "editor",
      body: '{"name":"Never imported"}\n{"name":"Bad VAT","vatNumber":"nope"}\n',
      headers: ndjson,
    });
    h.expectError(bad, 422, "1 line of the import was refused; nothing was written.");
    assert.deepEqual(
      ((bad.json as Row).lines as Row[]).map((line) => [line.line, line.member]),
      [[2, "vatNumber"]],
    );
    h.expectError(await h.call("POST", "/companies/bulk", { user: "guest", body: '{"name":"Guest"}\n', headers: ndjson }), 403);
    assert.equal(await count("SELECT COUNT(*) AS n FROM Companies"), before + 2);
  });
}
