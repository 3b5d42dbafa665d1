// The hostile-data suite (docs/reliability.md "Hostile data"): the demo runs as a child process on one
// engine; generated filter bodies and entity bodies (wrong types, huge numbers, deep nesting, `__proto__` and
// `constructor` keys, change-tracking properties, ids of other rows) are sent over HTTP, and after each one
// the demo's tables are compared with what they were: a body that is refused changes nothing, an insert adds
// only its own rows, an update changes only the row it names, and change-tracking properties sent by the
// client are ignored. The regressions of issue 17 "values that do not fit their column" are checked here too.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import type { DemoDatabase, DemoEngine } from "../demo/demo-engines.js";
import { startDemo, type DemoProcess } from "../demo/demo-process.js";
import { ask, type Answer } from "../http/http-test-client.js";
import {
  applyMutations,
  changeTracking,
  filterBody,
  type JsonText,
  type Mutation,
  mutation,
  objectText,
  type PropertyTypes,
} from "./hostile-data-generators.js";

/** The seed of this run: TENON_SEED replays one. */
export const seed = process.env.TENON_SEED !== undefined ? Number(process.env.TENON_SEED) : Date.now() % 2 ** 31;
/** Whether this is the long variant (TENON_LONG=1, `npm run test:reliability`). */
export const long = process.env.TENON_LONG === "1";

type Row = Record<string, unknown>;
/** Each table's rows by id, as JSON text (lower-case column names). */
type Snapshot = Map<string, Map<number, string>>;

const tables = ["Companies", "Employees", "Orders", "OrderLines"] as const;

/** An entity route of the demo, with what its generators need. */
interface Route {
  readonly path: string;
  readonly table: (typeof tables)[number];
  readonly types: PropertyTypes;
  readonly filterColumns: readonly string[];
  readonly base: readonly (readonly [string, JsonText])[];
}

const routes: readonly Route[] = [
  {
    path: "/companies",
    table: "Companies",
    types: { name: "text", email: "nullableText", vatNumber: "nullableText", creditLimit: "decimal" },
    filterColumns: ["name", "email", "vatNumber", "creditLimit", "id", "versionId", "createdAt", "deletedAt", "Name", "CreditLimit"],
    base: [
      ["name", '"Hostile Co"'],
      ["email", '"h@example.com"'],
      ["vatNumber", '"DE123456"'],
      ["creditLimit", '"100.00"'],
    ],
  },
  {
    path: "/employees",
    table: "Employees",
    types: { firstName: "text", lastName: "text", email: "nullableText", companyId: "int", salary: "decimal" },
    filterColumns: ["firstName", "lastName", "email", "companyId", "company", "salary", "notes", "id", "CompanyID"],
    base: [
      ["firstName", '"Eve"'],
      ["lastName", '"Hostile"'],
      ["email", "null"],
      ["companyId", "1"],
      ["salary", '"1000.00"'],
    ],
  },
  {
    path: "/orders",
    table: "Orders",
    types: { number: "text", companyId: "int", lines: "lines" },
    filterColumns: ["number", "total", "companyId", "id", "lines", "Total"],
    base: [
      ["number", '"SO-H"'],
      ["companyId", "1"],
      ["lines", '[{"product":"p","quantity":1,"price":"1.00"}]'],
    ],
  },
];

function lowerKeys(row: Row): Row {
  return Object.fromEntries(Object.entries(row).map(([key, value]) => [key.toLowerCase(), value]));
}

const jsonOf = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : Buffer.isBuffer(v) ? v.toString("hex") : v));

/** Defines the hostile-data suite on one engine with `runs` generated bodies of each kind. */
export function defineHostileDataSuite(engine: DemoEngine, runs: number): void {
  describe(`hostile data on the demo on ${engine.name}`, () => {
    let db: DemoDatabase;
    let demo: DemoProcess;
    let token = "";

    const call = (method: string, path: string, body?: string): Promise<Answer> => {
      const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
      if (body !== undefined) headers["Content-Type"] = "application/json";
      return ask(demo.port, `/api${path}`, { method, headers, body });
    };
    const snapshot = async (): Promise<Snapshot> => {
      const result: Snapshot = new Map();
      for (const table of tables) {
        const rows = new Map<number, string>();
        for (const row of await db.rows(`SELECT * FROM ${table}`)) {
          const lower = lowerKeys(row);
          rows.set(Number(lower.id), jsonOf(lower));
        }
        result.set(table, rows);
      }
      return result;
    };
    /** Every difference between two snapshots: [table, id, what]. */
    const differences = (before: Snapshot, after: Snapshot): [string, number, "added" | "changed" | "removed"][] => {
      const found: [string, number, "added" | "changed" | "removed"][] = [];
      for (const table of tables) {
        const a = before.get(table) ?? new Map<number, string>();
        const b = after.get(table) ?? new Map<number, string>();
        for (const [id, row] of a) {
          if (!b.has(id)) found.push([table, id, "removed"]);
          else if (b.get(id) !== row) found.push([table, id, "changed"]);
        }
        for (const id of b.keys()) if (!a.has(id)) found.push([table, id, "added"]);
      }
      return found;
    };
    const row = (s: Snapshot, table: string, id: number): Row => JSON.parse(s.get(table)?.get(id) ?? "null") as Row;

    before(async () => {
      db = await engine.open();
      demo = await startDemo(db.env);
      const logon = await ask(demo.port, "/api/logon", {
        method: "POST",
        body: JSON.stringify({ username: "editor", password: "editor" }),
      });
      assert.equal(logon.status, 200, logon.text);
      token = (logon.json as { token: string }).token;
    });
    after(async () => {
      try {
        await demo?.stop("SIGTERM");
      } finally {
        await db?.close();
      }
    });

    const expectError = (answer: Answer, status: number, property: string | RegExp): void => {
      assert.equal(answer.status, status, answer.text);
      const body = answer.json as { message?: string; errors?: { property: string }[] };
      const named = JSON.stringify(body);
      if (typeof property === "string") assert.ok(named.includes(property), `${property} is named in ${answer.text}`);
      else assert.match(named, property);
    };

    test("an order whose event-computed total exceeds decimal(18, 2) answers 422 naming total, stores nothing, and reads still work", async () => {
      const before = await snapshot();
      const answer = await call(
        "POST",
        "/orders",
        JSON.stringify({ number: "SO-BIG", companyId: 1, lines: [{ product: "Gold", quantity: 10, price: "9999999999999999.99" }] }),
      );
      expectError(answer, 422, '"property":"total"');
      assert.deepEqual(differences(before, await snapshot()), []);
      const list = await call("GET", "/orders");
      assert.equal(list.status, 200, list.text);
    });

    test("9999999999999999.99 round-trips exactly and decimals order numerically over HTTP", async () => {
      const created = await call(
        "POST",
        "/orders",
        JSON.stringify({ number: "SO-MAX", companyId: 1, lines: [{ product: "Gold", quantity: 1, price: "9999999999999999.99" }] }),
      );
      assert.equal(created.status, 200, created.text);
      const id = (created.json as { id: number }).id;
      const read = await call("GET", `/orders/${id}`);
      assert.equal((read.json as { total: string }).total, "9999999999999999.99");
      const ordered = await call("POST", "/orders/select", JSON.stringify({ orderBy: [{ columnName: "total", direction: "DESC" }] }));
      const totals = (ordered.json as { data: { total: string }[] }).data.map((o) => o.total);
      assert.equal(totals[0], "9999999999999999.99");
      assert.deepEqual(
        totals,
        [...totals].sort((a, b) => Number(b) - Number(a)),
      );
      const above = await call(
        "POST",
        "/orders/select",
        JSON.stringify({ where: [{ columnName: "total", condition: ">", value: "9999999999999999.98" }] }),
      );
      assert.deepEqual(
        (above.json as { data: { id: number }[] }).data.map((o) => o.id),
        [id],
      );
      assert.equal((await call("DELETE", `/orders/${id}/0`)).status, 200);
    });

    test("an e-mail address longer than its column answers 422, text with NUL or a lone surrogate 400 naming the property", async () => {
      const before = await snapshot();
      const longEmail = `${"a".repeat(64)}@${Array.from({ length: 4 }, () => "b".repeat(60)).join(".")}.com`;
      assert.ok(longEmail.length > 254);
      expectError(await call("POST", "/companies", JSON.stringify({ name: "Long mail", email: longEmail })), 422, '"property":"email"');
      expectError(await call("POST", "/companies", JSON.stringify({ name: "Nul\u0000" })), 400, /Property name: .*NUL/);
      expectError(await call("POST", "/companies", JSON.stringify({ name: "Half \ud83d" })), 400, /Property name: .*surrogate/);
      expectError(
        await call("POST", "/companies/select", JSON.stringify({ where: [{ columnName: "name", condition: "=", value: "\udc00" }] })),
        400,
        /Property name: .*surrogate/,
      );
      assert.deepEqual(differences(before, await snapshot()), []);
    });

    test("a LIKE pattern ending in a backslash matches the same on every engine, and a long one answers 400", async () => {
      const like = (value: string): Promise<Answer> =>
        call("POST", "/companies/select", JSON.stringify({ where: [{ columnName: "name", condition: "LIKE", value }] }));
      const trailing = await like("Acme\\");
      assert.equal(trailing.status, 200, trailing.text);
      assert.equal((trailing.json as { count: number }).count, 0);
      assert.equal((await like(`%${"_".repeat(998)}`)).status, 200);
      expectError(await like("%".repeat(50_000)), 400, /longer than 1000 characters/);
    });

    for (const [count, chunkSeed] of chunks(runs)) {
      test(`${count} generated filter bodies answer below 500 and change no row (seed ${chunkSeed})`, async () => {
        const selectable = [
          ...routes.map((r) => ({ path: r.path, columns: r.filterColumns })),
          { path: "/employee-directory", columns: ["companyName", "lastName"] },
        ];
        const arbitrary = fc
          .constantFrom(...selectable)
          .chain((route) => filterBody(route.columns).map((body) => ({ path: route.path, body })));
        const before = await snapshot();
        const statuses = new Map<number, number>();
        await fc.assert(
          fc.asyncProperty(arbitrary, async ({ path, body }) => {
            const answer = await call("POST", `${path}/select`, body);
            statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
            assert.ok(answer.status < 500, `${path}/select ${body.slice(0, 300)} answered ${answer.status}: ${answer.text}`);
            if (answer.status !== 200) assert.ok(typeof (answer.json as { message?: unknown })?.message === "string", answer.text);
          }),
          { seed: chunkSeed, numRuns: count },
        );
        console.log(`hostile data, ${engine.name}, filter bodies by status: ${jsonOf(Object.fromEntries(statuses))}`);
        assert.deepEqual(differences(before, await snapshot()), [], "a select changed rows");
      });
    }

    for (const [count, chunkSeed] of chunks(runs)) {
      test(`${count} generated entity bodies answer below 500, change only their own row and ignore change tracking (seed ${chunkSeed})`, async () => {
        const companies = await snapshot();
        const otherIds = [...(companies.get("Companies")?.keys() ?? []), ...(companies.get("OrderLines")?.keys() ?? [])].slice(0, 12);
        const arbitrary = fc.record({
          route: fc.constantFrom(...routes),
          update: fc.boolean(),
          target: fc.nat(),
          mutations: fc.constantFrom(...routes).chain((r) => fc.array(mutation(r.types, otherIds), { minLength: 1, maxLength: 3 })),
        });
        const statuses = new Map<string, number>();
        await fc.assert(
          fc.asyncProperty(arbitrary, async ({ route, update, target, mutations }) => {
            const before = await snapshot();
            const live = [...(before.get(route.table)?.keys() ?? [])].filter((id) => row(before, route.table, id)?.deletedat == null);
            let entries: readonly (readonly [string, JsonText])[] = route.base;
            let targetId: number | undefined;
            if (update && live.length > 0) {
              targetId = live[target % live.length];
              const current = await call("GET", `${route.path}/${targetId}`);
              assert.equal(current.status, 200, current.text);
              entries = Object.entries(current.json as Row).map(([key, value]) => [key, JSON.stringify(value)] as const);
            }
            const applicable = mutations.filter((m) => m.key in route.types || m.kind !== "wrongType");
            const body = objectText(applyMutations(entries, applicable));
            const answer = await call(targetId === undefined ? "POST" : "PUT", route.path, body);
            const what = `${targetId === undefined ? "POST" : "PUT"} ${route.path} ${body.slice(0, 400)} -> ${answer.status} ${answer.text.slice(0, 300)}`;
            assert.ok(answer.status < 500, what);
            const outcome = `${targetId === undefined ? "POST" : "PUT"} ${answer.status}${applicable.some((m) => m.kind === "track") ? " tracking" : ""}`;
            statuses.set(outcome, (statuses.get(outcome) ?? 0) + 1);
            const after = await snapshot();
            const changes = differences(before, after);
            if (answer.status !== 200) {
              assert.deepEqual(changes, [], `a refused body changed rows: ${what}`);
              return;
            }
            assert.ok(!refusedType(applicable, body), `a value of the wrong type was accepted: ${what}`);
            const id = (answer.json as { id: number }).id;
            for (const [table, rowId, kind] of changes) {
              const own = table === route.table && rowId === id;
              const ownLine =
                route.table === "Orders" &&
                table === "OrderLines" &&
                Number(row(kind === "removed" ? before : after, table, rowId)?.orderid) === id;
              assert.ok(own || ownLine, `${table} ${rowId} ${kind} by ${what}`);
              if (own && kind !== "added") assert.equal(targetId !== undefined, true, what);
            }
            const stored = row(after, route.table, id);
            if ("createdby" in stored) {
              if (targetId === undefined || !before.get(route.table)?.has(id)) {
                assert.equal(stored.createdby, "editor", `createdBy is the caller's, not the body's: ${what}`);
              } else {
                const previous = row(before, route.table, id);
                for (const column of changeTracking
                  .map((c) => c.toLowerCase())
                  .filter((c) => c.startsWith("created") || c.startsWith("deleted"))) {
                  if (column in previous) assert.deepEqual(stored[column], previous[column], `${column} kept: ${what}`);
                }
              }
              if ("updatedby" in stored && targetId !== undefined) assert.equal(stored.updatedby, "editor", what);
            }
            if ("deletedat" in stored) assert.equal(stored.deletedat, null, `deletedAt cannot be set through a body: ${what}`);
          }),
          { seed: chunkSeed, numRuns: count },
        );
        console.log(`hostile data, ${engine.name}, entity bodies by outcome: ${jsonOf(Object.fromEntries(statuses))}`);
      });
    }
  });
}

/**
 * The generated cases in tests of at most 200 each (every test must end within the runner's two minutes):
 * [count, seed] pairs, the seeds `seed`, `seed + 1`... so that TENON_SEED replays every one of them.
 */
function chunks(runs: number): [number, number][] {
  const result: [number, number][] = [];
  for (let done = 0, index = 0; done < runs; done += 200, index++) result.push([Math.min(200, runs - done), seed + index]);
  return result;
}

/** Whether a wrong-type mutation survived into the body (so the body must have been refused). */
function refusedType(mutations: readonly Mutation[], body: string): boolean {
  const parsed = JSON.parse(body) as Row;
  return mutations.some(
    (m) => m.kind === "wrongType" && Object.hasOwn(parsed, m.key) && JSON.stringify(parsed[m.key]) === JSON.stringify(JSON.parse(m.value)),
  );
}
