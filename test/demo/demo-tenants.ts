// Tenant scoping through the demo: `rival` works for a second tenant and tries every route of every entity
// on the first tenant's rows. Each answer must be what an absent row gives (404, an empty page, a count of 0,
// the 422 of a missing reference), nothing of the first tenant may change, and a tenant named in a body is
// ignored. Part of the end-to-end suite (SQLite, PostgreSQL and MariaDB).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Answer } from "../http/http-test-client.js";
import type { DemoHeaderCall } from "./demo-idempotency.js";
import type { DemoWriteHelpers } from "./demo-writes.js";

type Row = Record<string, unknown>;

/** Defines the tenant tests inside the demo suite's `describe`. */
export function defineDemoTenantTests(h: DemoWriteHelpers, call: DemoHeaderCall): void {
  const absentId = 2_000_000_000;
  /** The answer to `rival` must be the answer an absent id gets: same status, same body with the id swapped. */
  const sameAsAbsent = (foreign: Answer, absent: Answer, id: number, route: string): void => {
    assert.equal(foreign.status, absent.status, `${route}: ${foreign.text} / ${absent.text}`);
    const masked = (text: string, each: number): string => text.replace(new RegExp(`\\b${each}\\b`, "g"), "<id>");
    if (foreign.text !== absent.text) assert.equal(masked(foreign.text, id), masked(absent.text, absentId), route);
  };
  const snapshot = async (): Promise<string> =>
    JSON.stringify([
      await h.rows("SELECT ID AS id, Name AS name, VersionID AS v, DeletedAt AS d, TenantID AS t FROM Companies ORDER BY ID"),
      await h.rows("SELECT ID AS id, LastName AS name, VersionID AS v, TenantID AS t FROM Employees ORDER BY ID"),
      await h.rows("SELECT ID AS id, Number AS name, VersionID AS v, TenantID AS t FROM Orders ORDER BY ID"),
      await h.rows("SELECT ID AS id, Product AS name, VersionID AS v, TenantID AS t FROM OrderLines ORDER BY ID"),
    ]);

  test("tenants: the second tenant tries every route on the first tenant's rows and learns nothing, changes nothing", async () => {
    const company = await h.ok("GET", `/companies/${((await h.ok("GET", "/companies", "editor")).data as Row[])[0].id}`, "editor");
    const employee = ((await h.ok("GET", "/employees", "editor")).data as Row[])[0];
    const order = await h.ok("GET", `/orders/${((await h.ok("GET", "/orders", "editor")).data as Row[])[0].id}`, "editor");
    const before = await snapshot();
    const targets: [string, Row][] = [
      ["companies", company],
      ["employees", employee],
      ["orders", order],
    ];
    for (const [name, row] of targets) {
      const id = Number(row.id);
      const as = (method: string, path: string, body?: unknown): Promise<Answer> =>
        call(method, `/${name}${path}`, { user: "rival", body });
      const list = await as("GET", "");
      assert.deepEqual(list.json, { count: 0, data: [] }, `GET /${name}: ${list.text}`);
      const selected = await as("POST", "/select", { where: [{ columnName: "id", condition: "=", value: id }] });
      assert.deepEqual(selected.json, { count: 0, data: [] });
      const wide = await as("POST", "/select", { where: [{ columnName: "id", condition: ">", value: 0 }] });
      assert.deepEqual(wide.json, { count: 0, data: [] }, "no filter reaches another tenant's rows");
      assert.equal((await as("POST", "/select", { where: [{ columnName: "tenantId", condition: "=", value: "north" }] })).status, 400);
      for (const path of ["/", "/find/"])
        sameAsAbsent(await as("GET", `${path}${id}`), await as("GET", `${path}${absentId}`), id, `GET ${path}`);
      sameAsAbsent(
        await as("PUT", "", { ...row, versionId: row.versionId }),
        await as("PUT", "", { ...row, id: absentId }),
        id,
        `PUT /${name}`,
      );
      sameAsAbsent(
        await as("PATCH", `/${id}`, { versionId: row.versionId }),
        await as("PATCH", `/${absentId}`, { versionId: row.versionId }),
        id,
        `PATCH /${name}`,
      );
      sameAsAbsent(
        await as("DELETE", `/${id}/${row.versionId}`),
        await as("DELETE", `/${absentId}/${row.versionId}`),
        id,
        `DELETE /${name}`,
      );
      sameAsAbsent(
        await as("POST", "/bulk", { update: [{ ...row }] }),
        await as("POST", "/bulk", { update: [{ ...row, id: absentId }] }),
        id,
        `bulk update /${name}`,
      );
      sameAsAbsent(
        await as("POST", "/bulk", { delete: [{ id, versionId: row.versionId }] }),
        await as("POST", "/bulk", { delete: [{ id: absentId, versionId: row.versionId }] }),
        id,
        `bulk delete /${name}`,
      );
      assert.equal((await as("GET", "/metadata")).status, 200);
    }
    sameAsAbsent(
      await call("GET", `/employee-directory/${employee.id}`, { user: "rival" }),
      await call("GET", `/employee-directory/${absentId}`, { user: "rival" }),
      Number(employee.id),
      "GET /employee-directory",
    );
    assert.deepEqual((await call("GET", "/employee-directory", { user: "rival" })).json, { count: 0, data: [] });
    // A reference to another tenant's company is a company that does not exist.
    sameAsAbsent(
      await call("POST", "/employees", { user: "rival", body: { firstName: "Eve", lastName: "Spy", companyId: company.id } }),
      await call("POST", "/employees", { user: "rival", body: { firstName: "Eve", lastName: "Spy", companyId: absentId } }),
      Number(company.id),
      "POST /employees with another tenant's company",
    );
    assert.equal(await snapshot(), before, "nothing of the first tenant changed");
  });

  test("tenants: a tenant in a body is ignored, a chosen id is drawn anew, and each tenant sees only its own rows", async () => {
    const theirs = Number(((await h.ok("GET", "/companies", "editor")).data as Row[])[0].id);
    const mine = await h.ok("POST", "/companies", "rival", { name: "Rival Ltd", tenantId: "north", id: theirs });
    assert.notEqual(mine.id, theirs, "a chosen id that another tenant's row has is no 409: the id is drawn");
    assert.equal("tenantId" in mine, false, "the tenant is never on the wire");
    const [row] = await h.rows(`SELECT TenantID AS t FROM Companies WHERE ID = ${mine.id}`);
    assert.equal(row.t, "south");
    h.expectError(await call("GET", `/companies/${mine.id}`, { user: "editor" }), 404);
    const page = await h.ok("GET", "/companies", "rival");
    assert.deepEqual(
      (page.data as Row[]).map((company) => company.name),
      ["Rival Ltd"],
    );
    assert.equal(page.count, 1);
    const employee = await h.ok("POST", "/employees", "rival", { firstName: "Rita", lastName: "Rival", companyId: mine.id });
    const directory = await h.ok("GET", `/employee-directory/${employee.id}`, "rival");
    assert.equal(directory.companyName, "Rival Ltd");
    const moved = await h.ok("PUT", "/companies", "rival", { ...mine, name: "Rival Holdings", tenantId: "north" });
    assert.equal(moved.name, "Rival Holdings");
    assert.equal((await h.rows(`SELECT TenantID AS t FROM Companies WHERE ID = ${mine.id}`))[0].t, "south");
    const key = `tenant-key-${Date.now()}`;
    const first = await call("POST", "/companies", { user: "rival", body: { name: "Keyed" }, headers: { "Idempotency-Key": key } });
    const other = await call("POST", "/companies", { user: "editor", body: { name: "Keyed" }, headers: { "Idempotency-Key": key } });
    assert.equal(first.status, 200);
    assert.equal(other.status, 200);
    assert.notEqual((first.json as Row).id, (other.json as Row).id, "no tenant replays another's answer");
  });
}
