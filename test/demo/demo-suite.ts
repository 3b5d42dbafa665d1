// The end-to-end suite of the demo (examples/demo): the demo runs as a child process on one engine and every
// route is checked over HTTP, with the rows in the database checked directly afterwards. Written once,
// run on SQLite, PostgreSQL and MariaDB.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { ask, recordExchanges, sleep, type Answer } from "../http/http-test-client.js";
import type { DemoDatabase, DemoEngine } from "./demo-engines.js";
import { startDemo, type DemoProcess } from "./demo-process.js";
import { defineDemoWriteTests } from "./demo-writes.js";
import { defineDemoBulkTests } from "./demo-bulk.js";
import { defineDemoIdempotencyTests } from "./demo-idempotency.js";
import { defineDemoDataApiTests } from "./demo-data-api.js";
import { defineDemoTenantTests } from "./demo-tenants.js";
import { defineDemoChangeTests } from "./demo-changes.js";
import { defineDemoStreamingTests } from "./demo-streaming.js";
import { defineDemoAggregateTests } from "./demo-aggregates.js";
import { OpenApiContract } from "./openapi-contract.js";

type Row = Record<string, unknown>;
type Page = { count: number; data: Row[] };

/** Defines the end-to-end suite of the demo on one engine. */
export function defineDemoSuite(engine: DemoEngine): void {
  describe(`the demo on ${engine.name}`, () => {
    let db: DemoDatabase;
    let demo: DemoProcess;
    let stopped = false;
    const tokens: Record<string, string> = {};
    // The seeded rows' keys, read from the database: a Galera cluster's sequences count by the number of
    // nodes from each node's offset, so the first company is not always 1.
    let companyIds: number[] = [];
    let employeeIds: number[] = [];
    // Every exchange with the demo, checked against its served OpenAPI document once the suite has run.
    const recording = recordExchanges(() => demo?.port ?? 0);

    const call = (
      method: string,
      path: string,
      options: { user?: string; body?: unknown; headers?: Record<string, string> } = {},
    ): Promise<Answer> => {
      const headers: Record<string, string> = { ...options.headers };
      if (options.user !== undefined) headers.Authorization = `Bearer ${tokens[options.user]}`;
      let body: string | undefined;
      if (options.body !== undefined) {
        body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
        headers["Content-Type"] ??= "application/json";
      }
      return ask(demo.port, `/api${path}`, { method, headers, body });
    };
    const ok = async (method: string, path: string, user: string, body?: unknown): Promise<Row> => {
      const answer = await call(method, path, { user, body });
      assert.equal(answer.status, 200, `${method} ${path}: ${answer.text}`);
      return answer.json as Row;
    };
    const count = async (sql: string): Promise<number> => Number((await db.rows(sql))[0].n);
    const expectError = (answer: Answer, status: number, message?: string | RegExp): void => {
      assert.equal(answer.status, status, answer.text);
      const body = answer.json as { status: number; message: string };
      assert.equal(body.status, status);
      if (typeof message === "string") assert.equal(body.message, message);
      else if (message !== undefined) assert.match(body.message, message);
    };

    before(async () => {
      db = await engine.open();
      demo = await startDemo(db.env);
      for (const user of ["guest", "editor", "admin", "rival"]) {
        const answer = await ask(demo.port, "/api/logon", { method: "POST", body: JSON.stringify({ username: user, password: user }) });
        assert.equal(answer.status, 200, answer.text);
        tokens[user] = (answer.json as { token: string }).token;
      }
      const idsOf = async (table: string): Promise<number[]> =>
        (await db.rows(`SELECT ID AS id FROM ${table} ORDER BY ID`)).map((row) => Number(row.id));
      companyIds = await idsOf("Companies");
      employeeIds = await idsOf("Employees");
    });
    after(async () => {
      recording.stop();
      try {
        if (!stopped) await demo?.stop("SIGTERM");
      } finally {
        await db?.close();
      }
    });

    test("it reports the port it listens on and GET /api/health answers {status: ok} to anyone", async () => {
      assert.ok(demo.port > 0);
      if (engine.describes !== undefined) assert.match(demo.output(), new RegExp(`/api \\(${engine.describes}, process \\d+\\)`));
      const answer = await call("GET", "/health");
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.json, { status: "ok" });
      assert.match(String(answer.headers["content-type"]), /^application\/json/);
    });

    test("POST /api/logon answers a bearer token for the right pairs and 401 for wrong ones", async () => {
      for (const user of ["guest", "editor", "admin"]) assert.match(tokens[user], /^[\w-]+\.[\w-]+\.[\w-]+$/);
      for (const body of [
        { username: "admin", password: "editor" },
        { username: "nobody", password: "nobody" },
        { username: "ADMIN", password: "admin" },
        { username: "admin" },
        {},
        { username: 1, password: 1 },
      ]) {
        expectError(await call("POST", "/logon", { body }), 401);
      }
      expectError(await call("POST", "/logon", { body: "{not json" }), 400);
      expectError(await call("GET", "/logon"), 401, "Access unauthorized: /api/logon.");
      const get = await call("GET", "/logon", { user: "guest" });
      expectError(get, 405, "Method GET not allowed for command /api/logon.");
      assert.equal(get.headers.allow, "POST");
    });

    test("GET /api/admin/whoami answers the admin's user, 403 to an editor or guest, 401 to an anonymous caller", async () => {
      const me = await ok("GET", "/admin/whoami", "admin");
      assert.equal(me.username, "admin");
      assert.deepEqual(me.areas, ["read", "write", "admin"]);
      expectError(await call("GET", "/admin/whoami", { user: "editor" }), 403, "Access forbidden: /api/admin/whoami.");
      expectError(await call("GET", "/admin/whoami", { user: "guest" }), 403);
      const anonymous = await call("GET", "/admin/whoami");
      expectError(anonymous, 401, "Access unauthorized: /api/admin/whoami.");
      assert.match(String(anonymous.headers["www-authenticate"]), /^Bearer/);
      expectError(await call("GET", "/admin/whoami", { headers: { Authorization: "Bearer not.a.token" } }), 401);
      const forged = `${tokens.guest.slice(0, tokens.guest.lastIndexOf("."))}.${tokens.admin.slice(tokens.admin.lastIndexOf(".") + 1)}`;
      expectError(await call("GET", "/admin/whoami", { headers: { Authorization: `Bearer ${forged}` } }), 401);
    });

    test("an anonymous caller gets 401 before 404 or 405; a known caller gets 404, 405 with Allow, 405 without", async () => {
      expectError(await call("GET", "/nowhere"), 401);
      expectError(await call("GET", "/companies"), 401);
      expectError(await call("DELETE", "/companies/1/0"), 401);
      expectError(await call("GET", "/nowhere", { user: "guest" }), 404, "Command /api/nowhere not found.");
      expectError(await call("GET", "/companies/1/2/3", { user: "guest" }), 404);
      const wrongMethod = await call("DELETE", "/companies", { user: "admin" });
      expectError(wrongMethod, 405, "Method DELETE not allowed for command /api/companies.");
      assert.deepEqual(String(wrongMethod.headers.allow).split(", ").sort(), ["GET", "HEAD", "POST", "PUT"]);
      const patch = await call("PATCH", "/companies", { user: "admin", body: {} });
      expectError(patch, 405);
      assert.deepEqual(String(patch.headers.allow).split(", ").sort(), ["GET", "HEAD", "POST", "PUT"]);
      const trace = await call("TRACE", "/companies", { user: "admin" });
      expectError(trace, 405);
      assert.equal(trace.headers.allow, undefined);
    });

    test("the seed has 4 companies, 20 employees spread over them and 5 orders with 1 to 4 lines each", async () => {
      const companies = (await ok("GET", "/companies", "guest")) as Page;
      assert.ok(companies.count >= 3);
      assert.equal(companies.count, companies.data.length);
      const employees = (await ok("GET", "/employees", "guest")) as Page;
      assert.equal(employees.count, 20);
      const spread = new Set(employees.data.map((e) => e.companyId));
      assert.ok(spread.size >= 3, "employees are spread over the companies");
      const orders = (await ok("GET", "/orders", "guest")) as Page;
      assert.equal(orders.count, 5);
      assert.equal(await count("SELECT COUNT(*) AS n FROM Companies"), companies.count);
      assert.equal(await count("SELECT COUNT(*) AS n FROM Employees"), 20);
      assert.equal(await count("SELECT COUNT(*) AS n FROM Orders"), 5);
      const lines = await db.rows("SELECT OrderID AS orderid, COUNT(*) AS n FROM OrderLines GROUP BY OrderID");
      assert.equal(lines.length, 5);
      for (const row of lines) assert.ok(Number(row.n) >= 1 && Number(row.n) <= 4, `order ${row.orderid} has ${row.n} lines`);
    });

    test("every order's total is computed from its lines", async () => {
      const orders = (await ok("GET", "/orders", "guest")) as Page;
      for (const summary of orders.data) {
        const order = await ok("GET", `/orders/${summary.id}`, "guest");
        const lines = order.lines as { quantity: number; price: string }[];
        assert.ok(lines.length >= 1 && lines.length <= 4);
        const cents = lines.reduce((sum, line) => sum + line.quantity * Math.round(Number(line.price) * 100), 0);
        assert.equal(order.total, (cents / 100).toFixed(2), `order ${order.number}`);
      }
    });

    test("companies: list, get, find, metadata and select answer the documented shapes", async () => {
      const list = (await ok("GET", "/companies", "guest")) as Page;
      const acme = list.data.find((c) => c.name === "Acme Corporation") as Row;
      assert.deepEqual(Object.keys(acme).sort(), [
        "createdAt",
        "createdBy",
        "creditLimit",
        "deletedAt",
        "deletedBy",
        "email",
        "id",
        "name",
        "region",
        "updatedAt",
        "updatedBy",
        "vatNumber",
        "versionId",
      ]);
      assert.equal((await ok("GET", `/companies/${acme.id}`, "guest")).name, "Acme Corporation");
      assert.equal((await ok("GET", `/companies/find/${acme.id}`, "guest")).vatNumber, "IT01234567890");
      expectError(await call("GET", "/companies/99999", { user: "guest" }), 404, "Entity 99999 not found.");
      expectError(await call("GET", "/companies/find/99999", { user: "guest" }), 404, "Entity 99999 not found.");
      expectError(await call("GET", "/companies/abc", { user: "guest" }), 400);
      const metadata = await ok("GET", "/companies/metadata", "guest");
      assert.equal(metadata.entity, "Company");
      assert.equal(metadata.primaryKey, "id");
      assert.equal(metadata.versionColumn, "versionId");
      assert.ok((metadata.properties as Row[]).some((p) => p.name === "vatNumber"));
      assert.doesNotMatch(JSON.stringify(metadata), /Companies|VatNumber|CreditLimit/);
      const rich = (await ok("POST", "/companies/select", "guest", {
        where: [{ columnName: "creditLimit", condition: ">=", value: "50000" }],
        orderBy: [{ columnName: "name", direction: "DESC" }],
      })) as Page;
      assert.deepEqual(
        rich.data.map((c) => c.name),
        ["Globex Industries", "Acme Corporation"],
      );
      const paged = (await ok("POST", "/companies/select", "guest", { orderBy: [{ columnName: "id" }], start: 1, limit: 2 })) as Page;
      assert.equal(paged.count, list.count);
      assert.equal(paged.data.length, 2);
    });

    test("employees: notes are never in a response and cannot be filtered; salary is not filterable", async () => {
      const texts = [
        (await call("GET", "/employees", { user: "guest" })).text,
        (await call("GET", `/employees/${employeeIds[0]}`, { user: "guest" })).text,
        (await call("GET", `/employees/find/${employeeIds[0]}`, { user: "guest" })).text,
        (await call("POST", "/employees/select", { user: "guest", body: {} })).text,
        (await call("GET", "/employees/metadata", { user: "guest" })).text,
        (await call("GET", "/employees/createnew", { user: "editor" })).text,
      ];
      for (const text of texts) assert.doesNotMatch(text, /notes|Internal note/i);
      const employee = await ok("GET", `/employees/${employeeIds[0]}`, "guest");
      assert.equal(typeof employee.companyId, "number");
      assert.equal((employee.company as Row).id, employee.companyId);
      const notFilterable = (name: string): string =>
        `Column ${name} cannot be used in a filter: it is not a column of this entity, or it is marked as not filterable.`;
      for (const name of ["salary", "notes", "Notes", "nothing"]) {
        expectError(
          await call("POST", "/employees/select", { user: "guest", body: { where: [{ columnName: name, condition: "IS NULL" }] } }),
          400,
          notFilterable(name),
        );
      }
      const byCompany = (await ok("POST", "/employees/select", "guest", {
        where: [{ columnName: "companyId", condition: "=", value: employee.companyId }],
      })) as Page;
      assert.equal(byCompany.count, await count(`SELECT COUNT(*) AS n FROM Employees WHERE CompanyID = ${Number(employee.companyId)}`));
    });

    test("employees: a body cannot write notes, and an update keeps the stored notes", async () => {
      const inserted = await ok("POST", "/employees", "editor", {
        firstName: "Nora",
        lastName: "Notes",
        companyId: companyIds[0],
        notes: "from the body",
      });
      assert.equal("notes" in inserted, false);
      const [row] = await db.rows(`SELECT Notes AS notes, CreatedBy AS createdby FROM Employees WHERE ID = ${Number(inserted.id)}`);
      assert.equal(row.notes, null);
      assert.equal(row.createdby, "editor");
      const seeded = await ok("GET", `/employees/find/${employeeIds[1]}`, "guest");
      const updated = await ok("PUT", "/employees", "editor", { ...seeded, firstName: "Renamed", notes: "overwritten?" });
      assert.equal(updated.firstName, "Renamed");
      const [after] = await db.rows(
        `SELECT Notes AS notes, FirstName AS firstname, UpdatedBy AS updatedby FROM Employees WHERE ID = ${employeeIds[1]}`,
      );
      assert.equal(after.notes, "Internal note 1");
      assert.equal(after.firstname, "Renamed");
      assert.equal(after.updatedby, "editor");
    });

    test("companies: insert, update with the version, 409 from a stale version, soft delete with the row kept", async () => {
      const created = await ok("POST", "/companies", "editor", {
        name: "Wayne Enterprises",
        email: "bruce@wayne.example",
        vatNumber: "US12345",
        creditLimit: "2500.50",
      });
      const id = Number(created.id);
      assert.ok(id > 4);
      assert.equal(created.versionId, 0);
      assert.equal(created.createdBy, "editor");
      const [row] = await db.rows(`SELECT Name AS name, CreatedBy AS createdby, VersionID AS versionid FROM Companies WHERE ID = ${id}`);
      assert.deepEqual({ ...row, versionid: Number(row.versionid) }, { name: "Wayne Enterprises", createdby: "editor", versionid: 0 });
      const updated = await ok("PUT", "/companies", "admin", { ...created, creditLimit: "3000.00", createdBy: "mallory" });
      assert.equal(updated.versionId, 1);
      assert.equal(updated.creditLimit, "3000.00");
      assert.equal(updated.createdBy, "editor");
      assert.equal(updated.updatedBy, "admin");
      expectError(await call("PUT", "/companies", { user: "editor", body: { ...created, name: "Stale" } }), 409);
      expectError(await call("DELETE", `/companies/${id}/0`, { user: "editor" }), 409);
      const [kept] = await db.rows(`SELECT Name AS name, VersionID AS versionid, DeletedAt AS deletedat FROM Companies WHERE ID = ${id}`);
      assert.equal(kept.name, "Wayne Enterprises");
      assert.equal(Number(kept.versionid), 1);
      assert.equal(kept.deletedat, null);
      assert.deepEqual(await ok("DELETE", `/companies/${id}/1`, "editor"), { id, deleted: true });
      const [deleted] = await db.rows(`SELECT DeletedAt AS deletedat, DeletedBy AS deletedby FROM Companies WHERE ID = ${id}`);
      assert.notEqual(deleted.deletedat, null, "a soft delete keeps the row with DeletedAt set");
      assert.equal(deleted.deletedby, "editor");
      expectError(await call("GET", `/companies/${id}`, { user: "guest" }), 404);
      expectError(await call("DELETE", `/companies/${id}/2`, { user: "editor" }), 404);
      const list = (await ok("GET", "/companies", "guest")) as Page;
      assert.equal(
        list.data.some((c) => c.id === id),
        false,
      );
      expectError(await call("PUT", "/companies", { user: "editor", body: { ...updated, name: "Undead" } }), 404);
    });

    test("deleting a company that has employees is refused with 409 and changes nothing", async () => {
      const [row] = await db.rows(`SELECT VersionID AS versionid FROM Companies WHERE ID = ${companyIds[0]}`);
      const answer = await call("DELETE", `/companies/${companyIds[0]}/${Number(row.versionid)}`, { user: "admin" });
      expectError(answer, 409, /cannot be deleted: \d+ row\(s\) of Employees refer to it/);
      const [after] = await db.rows(`SELECT DeletedAt AS deletedat, VersionID AS versionid FROM Companies WHERE ID = ${companyIds[0]}`);
      assert.equal(after.deletedat, null);
      assert.equal(Number(after.versionid), Number(row.versionid));
    });

    test("orders: an insert saves its lines and computes the total, an update replaces them, a delete removes order and lines", async () => {
      const created = await ok("POST", "/orders", "editor", {
        number: "SO-TEST-1",
        companyId: companyIds[1],
        total: "999999.00",
        lines: [
          { product: "Anvil", quantity: 3, price: "10.25" },
          { product: "Bird seed", quantity: 1, price: "0.99" },
        ],
      });
      const id = Number(created.id);
      assert.equal(created.total, "31.74");
      assert.equal((created.lines as Row[]).length, 2);
      assert.equal(await count(`SELECT COUNT(*) AS n FROM OrderLines WHERE OrderID = ${id}`), 2);
      const [stored] = await db.rows(`SELECT Total AS total FROM Orders WHERE ID = ${id}`);
      assert.equal(db.money(stored.total), 31.74);
      const lines = created.lines as Row[];
      const updated = await ok("PUT", "/orders", "editor", {
        ...created,
        lines: [
          { ...lines[0], quantity: 4 },
          { product: "Magnet", quantity: 2, price: "5.00" },
        ],
      });
      assert.equal(updated.total, "51.00");
      assert.equal(updated.versionId, 1);
      assert.deepEqual((updated.lines as Row[]).map((l) => l.product).sort(), ["Anvil", "Magnet"]);
      assert.equal(await count(`SELECT COUNT(*) AS n FROM OrderLines WHERE OrderID = ${id}`), 2);
      assert.equal(await count(`SELECT COUNT(*) AS n FROM OrderLines WHERE OrderID = ${id} AND Product = 'Bird seed'`), 0);
      expectError(await call("DELETE", `/orders/${id}/0`, { user: "editor" }), 409);
      assert.deepEqual(await ok("DELETE", `/orders/${id}/1`, "editor"), { id, deleted: true });
      assert.equal(await count(`SELECT COUNT(*) AS n FROM Orders WHERE ID = ${id}`), 0, "an order is deleted for real");
      assert.equal(await count(`SELECT COUNT(*) AS n FROM OrderLines WHERE OrderID = ${id}`), 0, "with its lines");
      expectError(await call("GET", `/orders/${id}`, { user: "guest" }), 404);
    });

    test("orders: a PUT without lines keeps them, and a line of another order sent in a PUT becomes a new line of this one", async () => {
      const orders = (await ok("GET", "/orders", "guest")) as Page;
      const [first, second] = orders.data
        .map((o) => Number(o.id))
        .sort((a, b) => a - b)
        .slice(2, 4);
      const other = await ok("GET", `/orders/${second}`, "guest");
      const otherLines = await db.rows(`SELECT ID AS id, Quantity AS quantity FROM OrderLines WHERE OrderID = ${second} ORDER BY ID`);
      const found = await ok("GET", `/orders/find/${first}`, "guest");
      assert.equal("lines" in found, false);
      const lineCount = await count(`SELECT COUNT(*) AS n FROM OrderLines WHERE OrderID = ${first}`);
      const renamed = await ok("PUT", "/orders", "editor", { ...found, number: "SO-RENAMED" });
      assert.equal(renamed.number, "SO-RENAMED");
      assert.equal((renamed.lines as Row[]).length, lineCount);
      assert.equal(renamed.total, found.total);
      assert.equal(await count(`SELECT COUNT(*) AS n FROM OrderLines WHERE OrderID = ${first}`), lineCount);
      const full = await ok("GET", `/orders/${first}`, "guest");
      const stolen: Row = { ...(other.lines as Row[])[0], quantity: 7 };
      const updated = await ok("PUT", "/orders", "editor", { ...full, lines: [...(full.lines as Row[]), stolen] });
      const mine = updated.lines as Row[];
      assert.equal(mine.length, lineCount + 1);
      assert.equal(
        mine.some((line) => line.id === stolen.id),
        false,
        "the other order's line id is not taken over",
      );
      for (const line of mine) assert.equal(line.orderId, first);
      assert.deepEqual(
        await db.rows(`SELECT ID AS id, Quantity AS quantity FROM OrderLines WHERE OrderID = ${second} ORDER BY ID`),
        otherLines,
      );
      assert.deepEqual(await ok("GET", `/orders/${second}`, "guest"), other);
    });

    test("createnew answers a new entity with its id without inserting it, to writers only", async () => {
      for (const name of ["companies", "employees", "orders"]) {
        const table = { companies: "Companies", employees: "Employees", orders: "Orders" }[name] as string;
        const before = await count(`SELECT COUNT(*) AS n FROM ${table}`);
        const fresh = await ok("GET", `/${name}/createnew`, "editor");
        assert.ok(Number(fresh.id) > 0);
        assert.equal(fresh.versionId, 0);
        assert.equal(await count(`SELECT COUNT(*) AS n FROM ${table}`), before);
        expectError(await call("GET", `/${name}/createnew`, { user: "guest" }), 403, `Access forbidden: /api/${name}/createnew.`);
      }
    });

    test("a guest reads but cannot write: every write route answers 403 and nothing changes", async () => {
      const before = await count("SELECT COUNT(*) AS n FROM Companies");
      assert.equal((await call("GET", "/companies", { user: "guest" })).status, 200);
      expectError(
        await call("POST", "/companies", { user: "guest", body: { name: "Guest Co" } }),
        403,
        "Access forbidden: /api/companies.",
      );
      expectError(await call("PUT", "/companies", { user: "guest", body: { id: 2, versionId: 0, name: "Guest Co" } }), 403);
      expectError(await call("DELETE", "/companies/3/0", { user: "guest" }), 403);
      expectError(await call("POST", "/orders", { user: "guest", body: { number: "X" } }), 403);
      expectError(await call("PUT", "/employees", { user: "guest", body: { id: 1, versionId: 0 } }), 403);
      assert.equal(await count("SELECT COUNT(*) AS n FROM Companies"), before);
      assert.equal(await count("SELECT COUNT(*) AS n FROM Companies WHERE Name = 'Guest Co'"), 0);
    });

    test("employee-directory answers GET and select with company names; other methods answer 405 with Allow", async () => {
      const list = (await ok("GET", "/employee-directory", "guest")) as Page;
      assert.equal(list.count, await count("SELECT COUNT(*) AS n FROM Employees"));
      const first = await ok("GET", `/employee-directory/${employeeIds[0]}`, "guest");
      assert.deepEqual(Object.keys(first).sort(), ["companyName", "email", "firstName", "id", "lastName"]);
      assert.equal((await ok("GET", `/employee-directory/find/${employeeIds[0]}`, "guest")).id, employeeIds[0]);
      assert.equal((await ok("GET", "/employee-directory/metadata", "guest")).entity, "EmployeeDirectory");
      const acme = (await ok("POST", "/employee-directory/select", "guest", {
        where: [{ columnName: "companyName", condition: "=", value: "Acme Corporation" }],
      })) as Page;
      assert.equal(acme.count, await count(`SELECT COUNT(*) AS n FROM Employees WHERE CompanyID = ${companyIds[0]}`));
      for (const row of acme.data) assert.equal(row.companyName, "Acme Corporation");
      for (const [method, path, allow] of [
        ["POST", "/employee-directory", "GET, HEAD"],
        ["PUT", "/employee-directory", "GET, HEAD"],
        ["DELETE", "/employee-directory/1", "GET, HEAD"],
      ]) {
        const answer = await call(method, path, {
          user: "admin",
          body: method === "POST" || method === "PUT" ? { firstName: "X" } : undefined,
        });
        expectError(answer, 405);
        assert.equal(answer.headers.allow, allow, `${method} ${path}`);
      }
    });

    test("validation failures answer 422 with the errors list, and nothing is written", async () => {
      const companies = await count("SELECT COUNT(*) AS n FROM Companies");
      const cases: [unknown, string[]][] = [
        [{ name: "Bad Mail", email: "not-an-address" }, ["email"]],
        [{ name: "Bad VAT", vatNumber: "it123" }, ["vatNumber"]],
        [{ name: "Too Rich", creditLimit: "1000000.01" }, ["creditLimit"]],
        [{ name: "Too Poor", creditLimit: "-1" }, ["creditLimit"]],
        [{ name: "", email: "x@", vatNumber: "1", creditLimit: "-5" }, ["creditLimit", "email", "name", "vatNumber"]],
      ];
      for (const [body, properties] of cases) {
        const answer = await call("POST", "/companies", { user: "editor", body });
        expectError(answer, 422);
        const errors = (answer.json as { errors: { property: string; column: string; message: string }[] }).errors;
        assert.deepEqual(errors.map((e) => e.property).sort(), properties, JSON.stringify(body));
        for (const error of errors) assert.ok(error.message.length > 0 && typeof error.column === "string");
      }
      assert.equal(await count("SELECT COUNT(*) AS n FROM Companies"), companies);
      const employee = await call("POST", "/employees", {
        user: "editor",
        body: { firstName: "No", lastName: "", companyId: companyIds[0] },
      });
      expectError(employee, 422, /Last name/);
      const employees = await count("SELECT COUNT(*) AS n FROM Employees");
      const ghost = await call("POST", "/employees", { user: "editor", body: { firstName: "Ghost", lastName: "Worker", companyId: 999 } });
      expectError(ghost, 422, "Company 999 does not exist.");
      assert.deepEqual((ghost.json as { errors: unknown[] }).errors, [
        { property: "company", column: "CompanyID", message: "Company 999 does not exist." },
      ]);
      expectError(
        await call("POST", "/employees", { user: "editor", body: { firstName: "No", lastName: "Company" } }),
        422,
        "Company is required.",
      );
      expectError(
        await call("POST", "/orders", { user: "editor", body: { number: "SO-GHOST", companyId: 999, lines: [] } }),
        422,
        "Company 999 does not exist.",
      );
      assert.equal(await count("SELECT COUNT(*) AS n FROM Employees"), employees);
      const orders = await count("SELECT COUNT(*) AS n FROM Orders");
      const lines = await count("SELECT COUNT(*) AS n FROM OrderLines");
      const zero = await call("POST", "/orders", {
        user: "editor",
        body: { number: "SO-ZERO", companyId: companyIds[0], lines: [{ product: "Anvil", quantity: 0, price: "1.00" }] },
      });
      expectError(zero, 422);
      assert.deepEqual(
        (zero.json as { errors: { property: string }[] }).errors.map((e) => e.property),
        ["quantity"],
      );
      const free = await call("POST", "/orders", {
        user: "editor",
        body: { number: "SO-FREE", companyId: companyIds[0], lines: [{ product: "Anvil", quantity: 1, price: "0" }] },
      });
      expectError(free, 422);
      assert.equal(await count("SELECT COUNT(*) AS n FROM Orders"), orders, "the order is rolled back with its failed line");
      assert.equal(await count("SELECT COUNT(*) AS n FROM OrderLines"), lines);
    });

    test("an insert with the id of an existing row gets an id of its own: the demo's entities are scoped by tenant", async () => {
      // A 409 would tell a tenant that some row, maybe another tenant's, has the id (docs/entities.md).
      const inserted = await ok("POST", "/companies", "editor", { id: companyIds[0], name: "Duplicate" });
      assert.notEqual(inserted.id, companyIds[0]);
      assert.equal(await count("SELECT COUNT(*) AS n FROM Companies WHERE Name = 'Duplicate'"), 1);
      assert.equal(await count(`SELECT COUNT(*) AS n FROM Companies WHERE ID = ${companyIds[0]} AND Name = 'Duplicate'`), 0);
    });

    test("malformed JSON, a wrong JSON type and a bad filter answer 400", async () => {
      expectError(await call("POST", "/companies", { user: "editor", body: '{"name": ' }), 400);
      expectError(await call("POST", "/companies", { user: "editor", body: { name: 42 } }), 400, /name/);
      expectError(await call("PUT", "/companies", { user: "editor", body: "[1,2]" }), 400);
      expectError(await call("POST", "/companies/select", { user: "guest", body: '{"where": [' }), 400);
      expectError(
        await call("POST", "/companies/select", {
          user: "guest",
          body: { where: [{ columnName: "name", condition: "SOUNDS LIKE", value: "x" }] },
        }),
        400,
      );
      expectError(
        await call("POST", "/companies/select", {
          user: "guest",
          body: { where: [{ columnName: "creditLimit", condition: "LIKE", value: "1%" }] },
        }),
        400,
      );
      expectError(await call("POST", "/companies/select", { user: "guest", body: { includeDeleted: true } }), 400);
      const injected = (await ok("POST", "/companies/select", "guest", {
        where: [{ columnName: "name", condition: "=", value: "' OR 1=1 --" }],
      })) as Page;
      assert.equal(injected.count, 0);
    });

    test("a body over 1 MiB answers 413 before it is read", async () => {
      const big = JSON.stringify({ name: "x".repeat(1024 * 1024 + 10) });
      const answer = await call("POST", "/companies", { user: "editor", body: big });
      expectError(answer, 413, "The request body is larger than the 1048576 bytes this server accepts.");
      assert.equal(await count("SELECT COUNT(*) AS n FROM Companies WHERE Name LIKE 'xxxx%'"), 0);
    });

    test("the log file has request and response lines, with the Authorization header redacted and no token", async () => {
      let text = "";
      for (let i = 0; i < 100 && !text.includes("/api/admin/whoami"); i++) {
        await sleep(100);
        try {
          text = readFileSync(db.logFile, "utf8");
        } catch {
          text = "";
        }
      }
      const records = text
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Row);
      assert.ok(records.some((r) => r.log === "request" && r.uri === "/api/companies"));
      assert.ok(records.some((r) => r.log === "response" && r.statusCode === 409));
      const withAuthorization = records.filter((r) => r.log === "request" && JSON.stringify(r.headers ?? []).includes("Authorization"));
      assert.ok(withAuthorization.length > 10);
      for (const record of withAuthorization) {
        const header = (record.headers as { name: string; value: string }[]).find((h) => h.name.toLowerCase() === "authorization");
        assert.equal(header?.value, "<redacted>");
      }
      for (const token of Object.values(tokens)) assert.equal(text.includes(token), false, "a token reached the log");
    });

    defineDemoWriteTests({ call, ok, rows: (sql) => db.rows(sql), expectError });
    defineDemoBulkTests({ call, ok, rows: (sql) => db.rows(sql), expectError }, () => companyIds);
    defineDemoStreamingTests({ call, ok, rows: (sql) => db.rows(sql), expectError });
    defineDemoIdempotencyTests({ call, ok, rows: (sql) => db.rows(sql), expectError }, call);
    defineDemoDataApiTests({ call, ok, expectError });
    defineDemoAggregateTests({ call, ok, expectError }, engine.name);
    defineDemoTenantTests({ call, ok, rows: (sql) => db.rows(sql), expectError }, call);
    defineDemoChangeTests({ call, ok, rows: (sql) => db.rows(sql), expectError }, { port: () => demo.port, token: (user) => tokens[user] });

    test("HEAD answers each GET route with the GET's status and headers and no body, to callers with and without rights", async () => {
      for (const [path, user] of [
        ["/companies", "guest"],
        [`/companies/${companyIds[0]}`, "guest"],
        ["/companies/find/999999", "guest"],
        ["/companies/createnew", "guest"],
        ["/orders/metadata", undefined],
        ["/health", undefined],
        ["/docs", undefined],
        ["/openapi.json", undefined],
        ["/nowhere", undefined],
        ["/nowhere", "guest"],
      ] as const) {
        const get = await call("GET", path, { user });
        const head = await call("HEAD", path, { user });
        assert.equal(head.status, get.status, `HEAD ${path}`);
        assert.equal(head.text, "");
        for (const name of ["content-type", "content-length", "etag", "www-authenticate"])
          assert.equal(head.headers[name], get.headers[name], `HEAD ${path}: ${name}`);
      }
    });

    test("the API reference page answers HTML, its stylesheet CSS and its scripts JavaScript, anonymously", async () => {
      const page = await call("GET", "/docs");
      assert.equal(page.status, 200);
      assert.match(String(page.headers["content-type"]), /^text\/html/);
      assert.match(page.text, /<div id="swagger-ui">/);
      const css = await call("GET", "/docs/swagger-ui.css");
      assert.equal(css.status, 200);
      assert.match(String(css.headers["content-type"]), /^text\/css/);
      const script = await call("GET", "/docs/init.js");
      assert.equal(script.status, 200);
      assert.match(String(script.headers["content-type"]), /^text\/javascript/);
      expectError(await call("GET", "/docs/secret.txt"), 404);
    });

    // After every test that talks to this demo process, before the one that restarts it.
    test("every answer this suite received is one the served OpenAPI document describes: status, media type, headers, body", async () => {
      const exchanges = [...recording.exchanges];
      assert.ok(exchanges.length > 300, `${exchanges.length} exchanges recorded`);
      const document = await ask(demo.port, "/api/openapi.json");
      assert.equal(document.status, 200);
      new OpenApiContract(document.json).assertConform(exchanges);
    });

    test("SIGTERM stops the demo with exit code 0; a restart keeps the data, DEMO_RESET=1 recreates it, SIGINT stops it with 0", async () => {
      const companies = await count("SELECT COUNT(*) AS n FROM Companies");
      assert.equal(await demo.stop("SIGTERM"), 0, demo.output());
      stopped = true;
      assert.match(demo.output(), /SIGTERM: stopping/);
      const again = await startDemo(db.env);
      try {
        const token = (
          await ask(again.port, "/api/logon", { method: "POST", body: JSON.stringify({ username: "guest", password: "guest" }) })
        ).json as { token: string };
        const list = await ask(again.port, "/api/companies", { headers: { Authorization: `Bearer ${token.token}` } });
        assert.equal(list.status, 200);
        assert.equal(await count("SELECT COUNT(*) AS n FROM Companies"), companies, "a restart does not seed again");
        assert.equal(await count("SELECT COUNT(*) AS n FROM Companies WHERE Name = 'Wayne Enterprises'"), 1);
      } finally {
        assert.equal(await again.stop("SIGINT"), 0, again.output());
      }
      const reset = await startDemo({ ...db.env, DEMO_RESET: "1" });
      try {
        assert.equal(await count("SELECT COUNT(*) AS n FROM Companies WHERE Name = 'Wayne Enterprises'"), 0);
        assert.equal(await count("SELECT COUNT(*) AS n FROM Employees"), 20);
        assert.equal(await count("SELECT COUNT(*) AS n FROM Orders"), 5);
      } finally {
        assert.equal(await reset.stop("SIGTERM"), 0, reset.output());
      }
    });
  });
}
