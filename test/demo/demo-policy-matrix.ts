// The generated policy matrix of the demo: every user x every entity x every operation x every member, each answer
// compared with the model of the policies (demo-policy-model.ts) and each write with the row it left in the
// database. Every mismatch is collected, so that one failure lists them all.
import assert from "node:assert/strict";
import type { Answer } from "../http/http-test-client.js";
import { openEventStream } from "../support/event-stream-client.js";
import {
  filterable,
  holds,
  type ModelEntity,
  type ModelUser,
  modelEntities,
  modelMembers,
  modelUsers,
  modelWrites,
  readable,
  visibleIdsSql,
  writeOutcome,
} from "./demo-policy-model.js";
import type { PolicyDemo } from "./demo-policy-suite.js";

type Row = Record<string, unknown>;
type WritableEntity = "companies" | "employees" | "orders";

/** The database columns of the members a write test sets. */
const columns: Readonly<Record<string, string>> = {
  name: "Name",
  region: "Region",
  email: "Email",
  vatNumber: "VatNumber",
  creditLimit: "CreditLimit",
  createdBy: "CreatedBy",
  updatedBy: "UpdatedBy",
  tenantId: "TenantID",
  firstName: "FirstName",
  lastName: "LastName",
  salary: "Salary",
  notes: "Notes",
  number: "Number",
};
const tables: Readonly<Record<WritableEntity, string>> = { companies: "Companies", employees: "Employees", orders: "Orders" };
const money = new Set(["creditLimit", "salary"]);

/** Runs the matrix; answers how many cases it checked (it fails listing every mismatch). */
export async function runPolicyMatrix(demo: PolicyDemo): Promise<number> {
  const problems: string[] = [];
  let checked = 0;
  const expect = (holdsTrue: boolean, what: string): void => {
    checked++;
    if (!holdsTrue) problems.push(what);
  };
  let serial = 0;
  const idsOf = async (sql: string): Promise<number[]> => (await demo.db.rows(sql)).map((row) => Number(row.id));
  const stored = async (entity: WritableEntity, id: number, member: string): Promise<unknown> =>
    (await demo.db.rows(`SELECT ${columns[member]} AS v FROM ${tables[entity]} WHERE ID = ${id}`))[0]?.v;
  const sameStored = (member: string, value: unknown, wanted: unknown): boolean =>
    money.has(member) ? demo.db.money(value) === Number(wanted) : String(value) === String(wanted);

  // Each user's own company to refer to (the rival's tenant starts empty).
  const acme = (await idsOf("SELECT ID AS id FROM Companies WHERE Name = 'Acme Corporation'"))[0];
  const rivalCompany = Number((await demo.ok("POST", "/companies", "rival", { name: "Rival Matrix Ltd" })).id);
  const companyOf = (user: ModelUser): number => (user.tenant === "south" ? rivalCompany : acme);
  const creator = (user: ModelUser): string => (user.tenant === "south" ? "rival" : "admin");
  const baseBody = (entity: WritableEntity, user: ModelUser): Row => {
    const n = ++serial;
    if (entity === "companies") return { name: `Matrix base ${n}`, region: "EU", creditLimit: "10.00" };
    if (entity === "employees") return { firstName: "Matrix", lastName: `Base ${n}`, companyId: companyOf(user) };
    return { number: `MB-${n}`, companyId: companyOf(user), lines: [] };
  };
  /** A new row of `entity` the user may write (made by a caller who may write it for the user). */
  const target = async (entity: WritableEntity, user: ModelUser): Promise<Row> =>
    demo.ok("POST", `/${entity}`, creator(user), baseBody(entity, user));
  const visibleCompanies = new Map<string, Set<number>>();
  for (const user of modelUsers) visibleCompanies.set(user.name, new Set(await idsOf(visibleIdsSql(user, "companies"))));

  const checkMembers = (user: ModelUser, entity: ModelEntity, row: Row, where: string): void => {
    for (const member of modelMembers[entity]) {
      expect(member in row === readable(user, entity, member), `${where}: ${member} ${member in row ? "present" : "absent"}`);
    }
    if (entity === "employees" || entity === "orders") {
      const seen = visibleCompanies.get(user.name)?.has(Number(row.companyId)) === true;
      if ("company" in row) {
        const nested = row.company as Row | null;
        expect(seen ? nested?.id === row.companyId : nested === null, `${where}: company ${JSON.stringify(nested)} (visible: ${seen})`);
        if (nested !== null && nested !== undefined) expect(!("tenantId" in nested), `${where}: nested tenantId`);
      }
    }
  };

  // Reads: list, get, find, select with each member in where and in orderBy, metadata, createnew.
  for (const user of modelUsers) {
    for (const entity of modelEntities) {
      const who = `${user.name} ${entity}`;
      const visible = await idsOf(visibleIdsSql(user, entity));
      const list = await demo.call("GET", `/${entity}`, user.name);
      expect(list.status === 200, `${who} list: ${list.status}`);
      const page = list.json as { count: number; data: Row[] };
      expect(page.count === visible.length, `${who} list: count ${page.count}, visible ${visible.length}`);
      expect(
        JSON.stringify(page.data.map((row) => Number(row.id)).sort((a, b) => a - b)) === JSON.stringify(visible),
        `${who} list: ids differ from the policy's`,
      );
      for (const row of page.data) checkMembers(user, entity, row, `${who} list ${row.id}`);
      // The live rows of every tenant and region: those the user may not read among them answer as absent ones.
      const all = await idsOf(visibleIdsSql({ ...user, region: undefined }, entity).replace(/[tc]\.TenantID = '[a-z]+'/g, "1 = 1"));
      const hidden = all.find((id) => !visible.includes(id));
      for (const path of ["", "find/"]) {
        if (visible.length > 0) {
          const one = await demo.call("GET", `/${entity}/${path}${visible[0]}`, user.name);
          expect(one.status === 200, `${who} GET ${path}${visible[0]}: ${one.status}`);
          if (one.status === 200) checkMembers(user, entity, one.json as Row, `${who} GET ${path}`);
        }
        if (hidden !== undefined) {
          const absent = 2_000_000_000;
          const got = await demo.call("GET", `/${entity}/${path}${hidden}`, user.name);
          const none = await demo.call("GET", `/${entity}/${path}${absent}`, user.name);
          expect(
            got.status === 404 && got.text.replace(String(hidden), "?") === none.text.replace(String(absent), "?"),
            `${who} GET ${path}hidden ${hidden}: ${got.status} ${got.text}`,
          );
        }
      }
      for (const member of modelMembers[entity]) {
        for (const body of [
          { where: [{ columnName: member, condition: "IS NOT NULL" }] },
          { orderBy: [{ columnName: member, direction: "DESC" }] },
        ]) {
          const selected = await demo.call("POST", `/${entity}/select`, user.name, body);
          const wanted = filterable(user, entity, member) ? 200 : 400;
          expect(selected.status === wanted, `${who} select ${JSON.stringify(body)}: ${selected.status}, wanted ${wanted}`);
          if (selected.status === 200) {
            const ids = (selected.json as { data: Row[] }).data.map((row) => Number(row.id));
            expect(
              ids.every((id) => visible.includes(id)),
              `${who} select by ${member}: a row outside the policy`,
            );
          }
        }
      }
      // Streamed exports: NDJSON holds the visible rows with the members the user reads, a CSV names only those.
      const ndjson = await demo.call(
        "POST",
        `/${entity}/select`,
        user.name,
        { orderBy: [{ columnName: "id" }] },
        { Accept: "application/x-ndjson" },
      );
      expect(ndjson.status === 200, `${who} NDJSON export: ${ndjson.status} ${ndjson.text.slice(0, 200)}`);
      const exported = ndjson.text
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as Row);
      expect(
        JSON.stringify(exported.map((row) => Number(row.id))) === JSON.stringify(visible),
        `${who} NDJSON export: ids differ from the policy's`,
      );
      for (const row of exported) checkMembers(user, entity, row, `${who} NDJSON ${row.id}`);
      const csv = await demo.call("POST", `/${entity}/select`, user.name, {}, { Accept: "text/csv" });
      const header = new Set(csv.text.split("\r\n")[0].split(","));
      for (const member of modelMembers[entity])
        expect(header.has(member) === readable(user, entity, member), `${who} CSV header: ${member} ${header.has(member)}`);
      expect(csv.text.split("\r\n").length - 2 === visible.length, `${who} CSV export: ${csv.text.split("\r\n").length - 2} rows`);
      // Aggregates: the rows measured are the visible ones; a group names only what the user reads on every row.
      const total = await demo.call("POST", `/${entity}/aggregate`, user.name, { metrics: [{ fn: "count", as: "n" }] });
      expect(
        total.status === 200 && ((total.json as { data: Row[] }).data[0]?.n ?? 0) === visible.length,
        `${who} aggregate count: ${total.status} ${total.text}, visible ${visible.length}`,
      );
      for (const member of modelMembers[entity]) {
        const grouped = await demo.call("POST", `/${entity}/aggregate`, user.name, {
          groupBy: [member],
          metrics: [{ fn: "count", as: "n" }],
        });
        const wanted = filterable(user, entity, member) ? 200 : 400;
        expect(grouped.status === wanted, `${who} aggregate by ${member}: ${grouped.status}, wanted ${wanted}`);
        if (grouped.status === 200) {
          const counted = (grouped.json as { data: Row[] }).data.reduce((sum, row) => sum + Number(row.n), 0);
          expect(counted === visible.length, `${who} aggregate by ${member}: ${counted} rows, visible ${visible.length}`);
        }
      }
      if (entity === "employees") {
        const summed = await demo.call("POST", "/employees/aggregate", user.name, { metrics: [{ fn: "sum", column: "salary", as: "s" }] });
        expect(summed.status === (readable(user, entity, "salary") ? 200 : 400), `${who} aggregate sum salary: ${summed.status}`);
      }
      const metadata = await demo.call("GET", `/${entity}/metadata`, user.name);
      const names = new Set(((metadata.json as { properties: Row[] }).properties ?? []).map((property) => property.name));
      for (const member of modelMembers[entity])
        expect(names.has(member) === readable(user, entity, member), `${who} metadata: ${member} ${names.has(member)}`);
      if (entity !== "employee-directory") {
        const fresh = await demo.call("GET", `/${entity}/createnew`, user.name);
        expect(fresh.status === (holds(user, "write") ? 200 : 403), `${who} createnew: ${fresh.status}`);
        if (fresh.status === 200) checkMembers(user, entity, fresh.json as Row, `${who} createnew`);
      }
    }
  }

  // Writes: each member through PATCH, POST, PUT and a bulk update, each answer and the row it left.
  for (const user of modelUsers) {
    for (const entity of ["companies", "employees", "orders"] as const) {
      const who = `${user.name} ${entity}`;
      if (!holds(user, "write")) {
        const row = await target(entity, modelUsers[1]);
        for (const [method, path, body] of [
          ["POST", `/${entity}`, baseBody(entity, user)],
          ["PATCH", `/${entity}/${row.id}`, { versionId: row.versionId }],
          ["PUT", `/${entity}`, row],
          ["POST", `/${entity}/bulk`, { insert: [baseBody(entity, user)] }],
          ["DELETE", `/${entity}/${row.id}/${row.versionId}`, undefined],
        ] as const) {
          const answer = await demo.call(method, path, user.name, body);
          expect(answer.status === 403, `${who} ${method} ${path}: ${answer.status}, wanted 403`);
        }
        continue;
      }
      for (const [member, template] of Object.entries(modelWrites[entity])) {
        const value = typeof template === "string" ? template.replace("{n}", String(++serial)) : template;
        const outcome = writeOutcome(user, entity, member);
        const judge = async (answer: Answer, id: number | undefined, before: unknown, how: string): Promise<void> => {
          const where = `${who} ${how} ${member}`;
          if (outcome === "refused") {
            expect(answer.status === 422, `${where}: ${answer.status}, wanted 422: ${answer.text}`);
            const errors = ((answer.json as { errors?: Row[] }).errors ?? []).map((error) => error.property);
            expect(errors.includes(member), `${where}: the 422 names ${errors.join()}`);
          } else {
            expect(answer.status === 200, `${where}: ${answer.status}, wanted 200: ${answer.text}`);
          }
          if (id === undefined) return;
          const after = await stored(entity, id, member);
          if (outcome === "stored" && answer.status === 200) expect(sameStored(member, after, value), `${where}: stored ${String(after)}`);
          else if (outcome === "ignored") expect(!sameStored(member, after, value), `${where}: the ignored value was stored`);
          else expect(String(after) === String(before), `${where}: ${String(before)} became ${String(after)}`);
        };
        const row = await target(entity, user);
        const id = Number(row.id);
        const beforePatch = await stored(entity, id, member);
        await judge(
          await demo.call("PATCH", `/${entity}/${id}`, user.name, { versionId: row.versionId, [member]: value }),
          id,
          beforePatch,
          "PATCH",
        );
        const current = (await demo.call("GET", `/${entity}/${id}`, user.name)).json as Row;
        const beforePut = await stored(entity, id, member);
        await judge(await demo.call("PUT", `/${entity}`, user.name, { ...current, [member]: value }), id, beforePut, "PUT");
        const latest = (await demo.call("GET", `/${entity}/${id}`, user.name)).json as Row;
        const beforeBulk = await stored(entity, id, member);
        const bulk = await demo.call("POST", `/${entity}/bulk`, user.name, { update: [{ ...latest, [member]: value }] });
        await judge(bulk, id, beforeBulk, "bulk update");
        if (outcome === "refused") expect((bulk.json as Row).operation === "update", `${who} bulk ${member}: no operation named`);
        const inserted = await demo.call("POST", `/${entity}`, user.name, { ...baseBody(entity, user), [member]: value });
        await judge(inserted, inserted.status === 200 ? Number((inserted.json as Row).id) : undefined, undefined, "POST");
      }
      // Delete: a row of its own, then (where the user has hidden rows) one it may not read.
      const doomed = await target(entity, user);
      const deleted = await demo.call("DELETE", `/${entity}/${doomed.id}/${doomed.versionId}`, user.name);
      expect(deleted.status === 200, `${who} DELETE own: ${deleted.status} ${deleted.text}`);
      const gone = await demo.db.rows(
        `SELECT ${entity === "companies" ? "DeletedAt" : "ID"} AS v FROM ${tables[entity]} WHERE ID = ${Number(doomed.id)}`,
      );
      expect(entity === "companies" ? gone[0]?.v !== null : gone.length === 0, `${who} DELETE own: the row is still there`);
      const visible = new Set(await idsOf(visibleIdsSql(user, entity)));
      const hidden = (await idsOf(`SELECT ID AS id FROM ${tables[entity]} ORDER BY ID`)).find((id) => !visible.has(id));
      if (hidden !== undefined) {
        const version = Number((await demo.db.rows(`SELECT VersionID AS v FROM ${tables[entity]} WHERE ID = ${hidden}`))[0].v);
        const before = JSON.stringify(await demo.db.rows(`SELECT * FROM ${tables[entity]} WHERE ID = ${hidden}`));
        for (const [method, path, body] of [
          ["PATCH", `/${entity}/${hidden}`, { versionId: version }],
          ["DELETE", `/${entity}/${hidden}/${version}`, undefined],
          ["POST", `/${entity}/bulk`, { delete: [{ id: hidden, versionId: version }] }],
        ] as const) {
          const answer = await demo.call(method, path, user.name, body);
          expect(answer.status === 404, `${who} ${method} hidden ${hidden}: ${answer.status} ${answer.text}`);
        }
        expect(
          before === JSON.stringify(await demo.db.rows(`SELECT * FROM ${tables[entity]} WHERE ID = ${hidden}`)),
          `${who}: a hidden row changed`,
        );
      }
    }
  }

  // The change feed of companies and orders: each subscriber hears of exactly the rows it may read.
  const streams = new Map<string, Awaited<ReturnType<typeof openEventStream>>>();
  for (const user of modelUsers) {
    const stream = await openEventStream(demo.port(), "/api/changes", { Authorization: `Bearer ${demo.token(user.name)}` });
    expect(stream.status === 200, `${user.name} /changes: ${stream.status}`);
    for (let i = 0; i < 2000 && !stream.comments.includes("changes"); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    streams.set(user.name, stream);
  }
  const written = [
    { user: "admin", entity: "companies", body: { name: "Feed Matrix EU", region: "EU" } },
    { user: "admin", entity: "companies", body: { name: "Feed Matrix US", region: "US" } },
    { user: "admin", entity: "orders", body: { number: "FM-1", companyId: acme, lines: [] } },
    { user: "rival", entity: "companies", body: { name: "Feed Matrix Rival" } },
  ] as const;
  const keys: { entity: string; id: number; tenant: string; region: string | undefined }[] = [];
  for (const write of written) {
    const row = await demo.ok("POST", `/${write.entity}`, write.user, write.body);
    keys.push({
      entity: write.entity === "companies" ? "Company" : "Order",
      id: Number(row.id),
      tenant: write.user === "rival" ? "south" : "north",
      region: write.entity === "companies" ? (row.region as string) : undefined,
    });
  }
  for (const user of modelUsers) {
    const stream = streams.get(user.name);
    if (stream === undefined) continue;
    const wanted = keys.filter(
      (key) => key.tenant === user.tenant && (user.region === undefined || key.region === undefined || key.region === user.region),
    );
    const events = await stream.waitFor(wanted.length, 30_000).catch(() => stream.events);
    // What else could still come has had the time the wanted ones took: nothing more may arrive.
    await new Promise((resolve) => setTimeout(resolve, 300));
    stream.close();
    const got = stream.events.map((event) => `${event.data.entity} ${event.data.key}`);
    expect(
      JSON.stringify(got) === JSON.stringify(wanted.map((key) => `${key.entity} ${key.id}`)),
      `${user.name} /changes: ${got.join(", ")}`,
    );
    for (const event of events)
      for (const member of ["tenantId", "salary", "notes"])
        expect(!(member in ((event.data.data as Row | undefined) ?? {})), `${user.name} /changes: ${member} in a record`);
  }

  assert.deepEqual(problems, [], `${problems.length} of ${checked} cases differ from the policy`);
  return checked;
}
