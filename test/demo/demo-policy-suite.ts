// The demo's row and column policies end to end (docs/policies.md): the demo runs as a child process on one engine,
// and its users' answers are compared with an independent model of the policies (demo-policy-model.ts): the rules
// one by one, then a generated matrix (every user x every entity x every operation x every member), then a hostile
// run of random requests that must leak no value and write nothing, then every answer against the OpenAPI
// document. Run on SQLite, PostgreSQL and MariaDB (demo-policies-*.test.ts).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ask, type Answer, recordExchanges } from "../http/http-test-client.js";
import { openEventStream, type EventStream } from "../support/event-stream-client.js";
import type { DemoDatabase, DemoEngine } from "./demo-engines.js";
import { startDemo, type DemoProcess } from "./demo-process.js";
import { runHostileRequests } from "./demo-policy-hostile.js";
import { runPolicyMatrix } from "./demo-policy-matrix.js";
import { OpenApiContract } from "./openapi-contract.js";

type Row = Record<string, unknown>;

/** What the policy tests lend each other: the demo, its database, and calls as each user. */
export interface PolicyDemo {
  readonly db: DemoDatabase;
  readonly port: () => number;
  /** The bearer token of a demo user. */
  token(user: string): string;
  /** One request as `user` (anonymous without one), with a JSON body when one is given. */
  call(method: string, path: string, user?: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  /** A request that must answer 200; its JSON. */
  ok(method: string, path: string, user: string, body?: unknown): Promise<Row>;
}

/** Defines the policy suite of the demo on one engine. */
export function defineDemoPolicySuite(engine: DemoEngine): void {
  describe(`the demo's policies on ${engine.name}`, () => {
    let db: DemoDatabase;
    let demo: DemoProcess;
    const tokens: Record<string, string> = {};
    const recording = recordExchanges(() => demo?.port ?? 0);
    const call: PolicyDemo["call"] = (method, path, user, body, headers = {}) => {
      const sent: Record<string, string> = { ...headers };
      if (user !== undefined) sent.Authorization = `Bearer ${tokens[user]}`;
      if (body !== undefined) sent["Content-Type"] ??= "application/json";
      return ask(demo.port, `/api${path}`, { method, headers: sent, body: body === undefined ? undefined : JSON.stringify(body) });
    };
    const ok: PolicyDemo["ok"] = async (method, path, user, body) => {
      const answer = await call(method, path, user, body);
      assert.equal(answer.status, 200, `${user} ${method} ${path}: ${answer.text}`);
      return answer.json as Row;
    };
    const lend = (): PolicyDemo => ({ db, port: () => demo.port, token: (user) => tokens[user], call, ok });
    const idOf = async (sql: string): Promise<number> => Number((await db.rows(sql))[0].id);

    before(async () => {
      db = await engine.open();
      demo = await startDemo(db.env);
      for (const user of ["guest", "editor", "admin", "sales", "rival"]) {
        const answer = await ask(demo.port, "/api/logon", { method: "POST", body: JSON.stringify({ username: user, password: user }) });
        assert.equal(answer.status, 200, answer.text);
        tokens[user] = (answer.json as { token: string }).token;
      }
    });
    after(async () => {
      recording.stop();
      try {
        await demo?.stop("SIGTERM");
      } finally {
        await db?.close();
      }
    });

    test("sales reads only its region's companies; another region's answers exactly as an absent one", async () => {
      const list = (await ok("GET", "/companies", "sales")) as { count: number; data: Row[] };
      assert.deepEqual(list.data.map((company) => company.name).sort(), ["Acme Corporation", "Initech"]);
      assert.equal(list.count, 2);
      assert.ok(list.data.every((company) => company.region === "EU"));
      const globex = await idOf("SELECT ID AS id FROM Companies WHERE Name = 'Globex Industries'");
      const absent = 2_000_000_000;
      for (const path of ["/companies/", "/companies/find/"]) {
        const hidden = await call("GET", `${path}${globex}`, "sales");
        const missing = await call("GET", `${path}${absent}`, "sales");
        assert.equal(hidden.status, 404);
        assert.equal(hidden.text.replace(String(globex), "<id>"), missing.text.replace(String(absent), "<id>"));
      }
      const wide = (await ok("POST", "/companies/select", "sales", { where: [{ columnName: "region", condition: "=", value: "US" }] })) as {
        count: number;
      };
      assert.equal(wide.count, 0, "no filter reaches another region's rows");
      const globexVersion = Number((await db.rows(`SELECT VersionID AS v FROM Companies WHERE ID = ${globex}`))[0].v);
      assert.equal((await call("PATCH", `/companies/${globex}`, "sales", { versionId: globexVersion, name: "Taken" })).status, 404);
      assert.equal((await call("DELETE", `/companies/${globex}/${globexVersion}`, "sales")).status, 404);
      const tag = (await call("GET", `/companies/${globex}`, "admin")).headers.etag as string;
      assert.equal(
        (await call("GET", `/companies/${globex}`, "sales", undefined, { "If-None-Match": tag })).status,
        404,
        "no 304 tells it exists",
      );
      const order = await idOf(`SELECT ID AS id FROM Orders WHERE CompanyID = ${globex} ORDER BY ID`);
      const seen = await ok("GET", `/orders/${order}`, "sales");
      assert.deepEqual([seen.companyId, seen.company], [globex, null], "a reference to a hidden company expands to null");
      const directory = (await ok("GET", "/employee-directory", "sales")) as { data: Row[] };
      assert.ok(directory.data.every((row) => row.companyName === "Acme Corporation" || row.companyName === "Initech"));
      assert.equal(Number((await db.rows("SELECT COUNT(*) AS n FROM Companies WHERE Name = 'Taken'"))[0].n), 0);
    });

    test("sales writes only companies of its region, and no credit limit above 100000.00", async () => {
      const acme = await ok("GET", `/companies/${await idOf("SELECT ID AS id FROM Companies WHERE Name = 'Acme Corporation'")}`, "sales");
      const raised = await call("PATCH", `/companies/${acme.id}`, "sales", { versionId: acme.versionId, creditLimit: "100000.01" });
      assert.equal(raised.status, 422, raised.text);
      assert.deepEqual((raised.json as { errors: Row[] }).errors, [
        { property: "creditLimit", column: "CreditLimit", message: "Property creditLimit: the caller may not write this value." },
      ]);
      const atLimit = await ok("PATCH", `/companies/${acme.id}`, "sales", { versionId: acme.versionId, creditLimit: "100000.00" });
      assert.equal(atLimit.creditLimit, "100000.00");
      const moved = await call("PATCH", `/companies/${acme.id}`, "sales", { versionId: atLimit.versionId, region: "US" });
      assert.equal(moved.status, 422);
      assert.equal((moved.json as { errors: Row[] }).errors[0].property, "region");
      const inserted = await ok("POST", "/companies", "sales", { name: "Sales Region Ltd", creditLimit: "10.00" });
      assert.deepEqual([inserted.region, inserted.createdBy], ["EU", "sales"]);
      const chosen = await ok("POST", "/companies", "sales", {
        id: await idOf("SELECT ID AS id FROM Companies WHERE Name = 'Globex Industries'"),
        name: "Chosen Key",
      });
      assert.notEqual(
        chosen.id,
        await idOf("SELECT ID AS id FROM Companies WHERE Name = 'Globex Industries'"),
        "a taken key tells nothing",
      );
      const foreign = await call("POST", "/companies", "sales", { name: "Across the sea", region: "US" });
      assert.equal(foreign.status, 422);
      assert.equal(Number((await db.rows("SELECT COUNT(*) AS n FROM Companies WHERE Name = 'Across the sea'"))[0].n), 0);
      // An employee of a company sales cannot read: the answer of a company that does not exist.
      const globex = await idOf("SELECT ID AS id FROM Companies WHERE Name = 'Globex Industries'");
      const hired = await call("POST", "/employees", "sales", { firstName: "Hidden", lastName: "Hire", companyId: globex });
      assert.equal(hired.status, 422);
      assert.equal((hired.json as { errors: Row[] }).errors[0].message, `Company ${globex} does not exist.`);
      assert.equal((await ok("GET", `/companies/${globex}`, "editor")).creditLimit, "120000.00", "editors are not limited");
    });

    test("salary: only admins read or write it; others never see it, cannot filter or order by it, and a body naming it is a 422", async () => {
      const employee = await ok("GET", `/employees/${await idOf("SELECT ID AS id FROM Employees ORDER BY ID")}`, "admin");
      assert.equal(typeof employee.salary, "string");
      for (const user of ["guest", "editor", "sales"]) {
        for (const path of ["/employees", `/employees/${employee.id}`, `/employees/find/${employee.id}`, "/employees/metadata"])
          assert.doesNotMatch((await call("GET", path, user)).text, /salary/, `${user} GET ${path}`);
        for (const body of [{ where: [{ columnName: "salary", condition: ">", value: "1" }] }, { orderBy: [{ columnName: "Salary" }] }]) {
          const refused = await call("POST", "/employees/select", user, body);
          assert.equal(refused.status, 400);
          assert.equal(
            (refused.json as Row).message,
            `Column ${body.where === undefined ? "Salary" : "salary"} cannot be used in a filter: it is not a column of this entity, or it is marked as not filterable.`,
          );
        }
      }
      const patched = await call("PATCH", `/employees/${employee.id}`, "editor", { versionId: employee.versionId, salary: "1.00" });
      assert.equal(patched.status, 422);
      assert.deepEqual((patched.json as { errors: Row[] }).errors[0].message, "Property salary may not be written by the caller.");
      // A PUT that leaves salary out keeps it; one that sends it is refused whatever its value.
      const { salary, company, ...body } = employee;
      void company;
      const renamed = await ok("PUT", "/employees", "editor", { ...body, firstName: "Renamed" });
      assert.equal("salary" in renamed, false);
      const stored = (await db.rows(`SELECT Salary AS salary FROM Employees WHERE ID = ${employee.id}`))[0].salary;
      assert.equal(db.money(stored), Number(salary));
      assert.equal((await call("PUT", "/employees", "editor", { ...body, versionId: renamed.versionId, salary })).status, 422);
      const raised = await ok("PATCH", `/employees/${employee.id}`, "admin", { versionId: renamed.versionId, salary: "77777.00" });
      assert.equal(raised.salary, "77777.00");
      const bulk = await call("POST", "/employees/bulk", "editor", {
        insert: [{ firstName: "Bulk", lastName: "Salary", companyId: employee.companyId, salary: "5.00" }],
      });
      assert.equal(bulk.status, 422);
      assert.deepEqual([(bulk.json as Row).operation, (bulk.json as Row).index], ["insert", 0]);
    });

    test("an order's createdBy is always the caller: set on insert, kept on update, a body naming another is a 422", async () => {
      const globex = await idOf("SELECT ID AS id FROM Companies WHERE Name = 'Globex Industries'");
      const order = await ok("POST", "/orders", "editor", { number: "PO-CREATOR", companyId: globex, lines: [] });
      assert.equal(order.createdBy, "editor");
      const forged = await call("POST", "/orders", "editor", { number: "PO-FORGED", companyId: globex, createdBy: "admin" });
      assert.equal(forged.status, 422);
      assert.equal((forged.json as { errors: Row[] }).errors[0].property, "createdBy");
      const same = await ok("POST", "/orders", "admin", { number: "PO-SAME", companyId: globex, createdBy: "admin" });
      assert.equal(same.createdBy, "admin", "the value it gets anyway is no override");
      const updated = await ok("PUT", "/orders", "admin", { ...order, number: "PO-CREATOR-2", lines: [] });
      assert.equal(updated.createdBy, "editor", "an update keeps the creator");
      const changed = await call("PATCH", `/orders/${order.id}`, "admin", { versionId: updated.versionId, createdBy: "admin" });
      assert.equal(changed.status, 422);
      assert.equal((await db.rows(`SELECT CreatedBy AS c FROM Orders WHERE ID = ${order.id}`))[0].c, "editor");
    });

    test("GET /api/openapi/mine is the caller's document: its routes, and of each entity what it reads and writes", async () => {
      const mine = async (user: string): Promise<{ paths: Record<string, Row>; components: { schemas: Record<string, Row> } }> =>
        (await ok("GET", "/openapi/mine", user)) as never;
      const guest = await mine("guest");
      assert.equal(guest.paths["/api/companies"].post, undefined, "guest may not write: no insert");
      assert.ok(guest.paths["/api/companies"].get !== undefined);
      assert.equal(guest.paths["/api/admin/whoami"], undefined);
      const props = (document: { components: { schemas: Record<string, Row> } }) =>
        document.components.schemas.Employee.properties as Record<string, Row>;
      assert.equal(props(guest).salary, undefined);
      const admin = await mine("admin");
      assert.ok(props(admin).salary !== undefined);
      assert.ok((admin.components.schemas.Employee.required as string[]).includes("salary"));
      assert.ok(admin.paths["/api/admin/whoami"] !== undefined);
      const filterColumns = (guest.components.schemas.EmployeeFilterCondition.properties as Record<string, Row>).columnName
        .enum as string[];
      assert.equal(filterColumns.includes("salary"), false);
      assert.equal((await call("GET", "/openapi/mine")).status, 401, "the caller's document needs a caller");
      const general = (await call("GET", "/openapi.json")).json as { components: { schemas: Record<string, Row> } };
      assert.equal((general.components.schemas.Employee.required as string[]).includes("salary"), false);
      assert.ok(props(general).salary !== undefined);
    });

    test("the change feed: each subscriber hears of the rows its policy lets it read, without the members it may not read", async () => {
      const subscribe = async (user: string): Promise<EventStream> => {
        const stream = await openEventStream(demo.port, "/api/companies/changes", { Authorization: `Bearer ${tokens[user]}` });
        assert.equal(stream.status, 200, stream.body);
        for (let i = 0; i < 2000 && !stream.comments.includes("changes"); i++) await new Promise((resolve) => setTimeout(resolve, 5));
        return stream;
      };
      const sales = await subscribe("sales");
      const editor = await subscribe("editor");
      const us = await ok("POST", "/companies", "admin", { name: "Feed US", region: "US" });
      const eu = await ok("POST", "/companies", "admin", { name: "Feed EU", region: "EU" });
      await ok("PATCH", `/companies/${us.id}`, "admin", { versionId: us.versionId, region: "EU" });
      const heard = await editor.waitFor(3);
      const salesHeard = await sales.waitFor(2);
      const last = await ok("POST", "/companies", "admin", { name: "Feed sentinel", region: "EU" });
      await sales.waitFor(3);
      sales.close();
      editor.close();
      assert.deepEqual(
        heard.map((event) => [event.data.key, event.data.action]),
        [
          [us.id, "insert"],
          [eu.id, "insert"],
          [us.id, "update"],
        ],
      );
      assert.deepEqual(
        sales.events.map((event) => [event.data.key, event.data.action]),
        [
          [eu.id, "insert"],
          [us.id, "update"],
          [last.id, "insert"],
        ],
        "sales never heard of the company while it was in the US",
      );
      for (const event of [...salesHeard, ...heard]) assert.equal("tenantId" in (event.data.data as Row), false);
    });

    test("the matrix: every user x entity x operation x member answers as the policy says", async () => {
      const checked = await runPolicyMatrix(lend());
      assert.ok(checked > 2000, `${checked} cases checked`);
    });

    test("a hostile run finds no value leaked and no row written", async () => {
      // 10,000 requests on SQLite and under TENON_LONG=1; 2,500 on a server engine otherwise (each opens a connection).
      const long = process.env.TENON_LONG === "1" || engine.name.startsWith("SQLite");
      const requests = Number(process.env.TENON_POLICY_REQUESTS ?? (long ? 10_000 : 2_500));
      const outcome = await runHostileRequests(lend(), requests);
      assert.equal(outcome.sent, requests);
      assert.deepEqual(outcome.leaks, [], `${outcome.leaks.length} leaks`);
      assert.equal(outcome.tablesBefore, outcome.tablesAfter, "a hostile request changed a table");
    });

    test("every answer of this suite conforms to the served document, and a caller's 2xx answers to the caller's own", async () => {
      const exchanges = [...recording.exchanges].filter((exchange) => !exchange.path.includes("/changes"));
      assert.ok(exchanges.length > 1000);
      new OpenApiContract((await call("GET", "/openapi.json")).json).assertConform(exchanges);
      for (const user of ["guest", "editor", "admin", "sales"]) {
        const own = exchanges.filter(
          (exchange) =>
            exchange.headers.Authorization === `Bearer ${tokens[user]}` &&
            exchange.answer.status === 200 &&
            !exchange.path.includes("/openapi/"),
        );
        new OpenApiContract((await call("GET", "/openapi/mine", user)).json).assertConform(own);
      }
    });
  });
}
