// The demo's OpenAPI document: it is served anonymously, it is a valid OpenAPI 3.1 document, and real
// answers of the running demo validate against the schemas the document gives for them: a fast-check
// property sends generated requests (every route, preset and caller, good and bad ids, filters and bodies)
// and checks each answer's status is documented for its path and method and its body fits the schema.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { Company, Employee, EmployeeDirectory, Order } from "../../examples/demo/entities.js";
import { filterColumnsOf } from "../../src/http/crud/filter-columns.js";
import { jsonPropertyName } from "../../src/json/json-visibility.js";
import type { EntityClass } from "../../src/mapping/column-type.js";
import { EntityMapping } from "../../src/mapping/entity-mapping.js";
import { ask, type Answer, type Exchange } from "../http/http-test-client.js";
import { sqliteDemoEngine } from "./demo-engines.js";
import { startDemo, type DemoProcess } from "./demo-process.js";
import { OpenApiContract } from "./openapi-contract.js";

type Document = { paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown[] }>> };

/** One generated request: a path of the document with its placeholders, a method, a caller and a body. */
interface Probe {
  readonly method: string;
  readonly path: string;
  readonly params: Readonly<Record<string, string | number>>;
  readonly user: "none" | "badToken" | "guest" | "editor";
  readonly body?: string;
  /** Conditional headers (`If-None-Match`, `If-Match`) and the like. */
  readonly headers?: Readonly<Record<string, string>>;
}

const entities = ["companies", "employees", "orders"] as const;
const readable = [...entities, "employee-directory"] as const;

const entityOf: Record<string, EntityClass> = {
  companies: Company,
  employees: Employee,
  orders: Order,
  "employee-directory": EmployeeDirectory,
};

/**
 * A select body as the document spells it: the document's `columnName` enum lists the JSON names, and the server
 * also reads a database column name and either name in any case (docs/crud.md), so a filter naming `name` for the
 * directory's `companyName` (its column Companies.Name) is checked as the `companyName` it is. A name the server
 * does not know stays as it was, and the contract check sees it.
 */
function asDocumented(url: string, body: string | undefined): string | undefined {
  const route = /^\/api\/([\w-]+)\/select$/.exec(url);
  if (route === null || body === undefined) return body;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body;
  }
  const columns = filterColumnsOf(EntityMapping.of(entityOf[route[1]]));
  const rename = (items: unknown): void => {
    if (!Array.isArray(items)) return;
    for (const item of items as Record<string, unknown>[]) {
      if (item === null || typeof item !== "object") continue;
      if (typeof item.columnName === "string") {
        const column = columns.find(item.columnName);
        if (column !== undefined) item.columnName = jsonPropertyName(column);
      }
      rename(item.or);
    }
  };
  if (parsed !== null && typeof parsed === "object") {
    rename((parsed as Record<string, unknown>).where);
    rename((parsed as Record<string, unknown>).orderBy);
  }
  return JSON.stringify(parsed);
}

/** Ids that exist, that do not, and that are not 32-bit integers. */
const idArb = fc.oneof(fc.integer({ min: 1, max: 8 }), fc.constantFrom<string | number>(99999, "abc", "3000000000"));
const userArb = fc.constantFrom<Probe["user"]>("none", "badToken", "guest", "editor", "editor", "editor");
const filterColumn = fc.constantFrom("name", "id", "number", "firstName", "email", "nonsense", "salary");
const filterArb = fc.oneof(
  fc
    .record({
      where: fc.array(
        fc.record({
          columnName: filterColumn,
          condition: fc.constantFrom("=", "LIKE", ">", "IS NULL", "BOGUS"),
          value: fc.oneof(fc.string(), fc.integer()),
        }),
        { maxLength: 2 },
      ),
      start: fc.integer({ min: -1, max: 3 }),
      limit: fc.integer({ min: 0, max: 5 }),
    })
    .map((filter) => JSON.stringify(filter)),
  fc
    .record({
      orderBy: fc.constant([{ columnName: "id", direction: "ASC" }]),
      limit: fc.integer({ min: 1, max: 3 }),
      count: fc.boolean(),
      after: fc.option(fc.constantFrom("garbage", "eyJ2IjpbMV19"), { nil: undefined }),
    })
    .map((filter) => JSON.stringify(filter)),
  fc.constantFrom("{", "[]", "null", '{"where": 5}'),
);
const entityBodyArb = fc
  .record({
    id: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 8 }), fc.constant("x")),
    name: fc.oneof(fc.constant(""), fc.string({ maxLength: 12 }), fc.constant("x".repeat(120))),
    number: fc.string({ maxLength: 8 }),
    firstName: fc.string({ maxLength: 8 }),
    lastName: fc.string({ maxLength: 8 }),
    email: fc.constantFrom(null, "a@b.example", "not an e-mail"),
    companyId: fc.constantFrom(1, 2, 99999, null),
    creditLimit: fc.constantFrom(null, "10.00", "-5", "abc"),
    versionId: fc.integer({ min: 0, max: 3 }),
  })
  .map((body) => JSON.stringify(body));

/** A version tag, well or badly formed, for the conditional headers. */
const tagArb = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 0, max: 2 })).map(([id, version]) => `"${id}-${version}"`),
  fc.constantFrom("*", "garbage", 'W/"1-0"'),
);
const bulkBodyArb = fc
  .record({
    insert: fc.array(
      entityBodyArb.map((text) => JSON.parse(text) as unknown),
      { maxLength: 2 },
    ),
    update: fc.array(
      entityBodyArb.map((text) => JSON.parse(text) as unknown),
      { maxLength: 2 },
    ),
    delete: fc.array(fc.record({ id: fc.integer({ min: 1, max: 9 }), versionId: fc.integer({ min: 0, max: 2 }) }), { maxLength: 2 }),
  })
  .map((body) => JSON.stringify(body));

/** A request to any route of the demo, well or badly formed. */
const probeArb: fc.Arbitrary<Probe> = fc.oneof(
  fc.record({
    method: fc.constant("GET"),
    path: fc.constantFrom(...entities.map((name) => `/api/${name}/{id}`)),
    params: fc.integer({ min: 1, max: 8 }).map((id) => ({ id })),
    user: userArb,
    headers: tagArb.map((tag) => ({ "If-None-Match": tag })),
  }),
  fc.record({
    method: fc.constantFrom("PUT", "PATCH"),
    path: fc.constantFrom(...entities.map((name) => `/api/${name}/{id}`), ...entities.map((name) => `/api/${name}`)),
    params: fc.integer({ min: 1, max: 8 }).map((id) => ({ id })),
    user: userArb,
    body: entityBodyArb,
    headers: tagArb.map((tag) => ({ "If-Match": tag })),
  }),
  // A DELETE by id takes no body (the document says none): the generator sends none, so that a delete that
  // succeeds is not counted as a body accepted where none is described.
  fc.record({
    method: fc.constant("DELETE"),
    path: fc.constantFrom(...entities.map((name) => `/api/${name}/{id}`), ...entities.map((name) => `/api/${name}`)),
    params: fc.integer({ min: 1, max: 8 }).map((id) => ({ id })),
    user: userArb,
    headers: tagArb.map((tag) => ({ "If-Match": tag })),
  }),
  fc.record({
    method: fc.constant("POST"),
    path: fc.constantFrom(...entities.map((name) => `/api/${name}/bulk`)),
    params: fc.constant({}),
    user: userArb,
    body: fc.oneof(bulkBodyArb, fc.constantFrom("{}", "[]", '{"insert": 5}')),
  }),
  fc.record({
    method: fc.constant("GET"),
    path: readable.map((name) => fc.constant(`/api/${name}`)).reduce((a, b) => fc.oneof(a, b)),
    params: fc.constant({}),
    user: userArb,
  }),
  fc.record({
    method: fc.constant("GET"),
    path: fc.constantFrom(...readable.map((name) => `/api/${name}/{id}`), ...readable.map((name) => `/api/${name}/find/{id}`)),
    params: idArb.map((id) => ({ id })),
    user: userArb,
  }),
  fc.record({
    method: fc.constant("GET"),
    path: fc.constantFrom(
      ...readable.map((name) => `/api/${name}/metadata`),
      ...entities.map((name) => `/api/${name}/createnew`),
      "/api/admin/whoami",
      "/api/health",
    ),
    params: fc.constant({}),
    user: userArb,
  }),
  fc.record({
    method: fc.constant("POST"),
    path: fc.constantFrom(...readable.map((name) => `/api/${name}/select`)),
    params: fc.constant({}),
    user: userArb,
    body: filterArb,
  }),
  fc.record({
    method: fc.constantFrom("POST", "PUT"),
    path: fc.constantFrom(...entities.map((name) => `/api/${name}`)),
    params: fc.constant({}),
    user: userArb,
    body: entityBodyArb,
  }),
  fc.record({
    method: fc.constant("PATCH"),
    path: fc.constantFrom(...entities.map((name) => `/api/${name}/{id}`)),
    params: idArb.map((id) => ({ id })),
    user: userArb,
    body: entityBodyArb,
  }),
  fc.record({
    method: fc.constant("DELETE"),
    path: fc.constantFrom(...entities.map((name) => `/api/${name}/{id}/{version}`)),
    params: fc.record({ id: idArb, version: fc.integer({ min: 0, max: 2 }) }),
    user: userArb,
  }),
  fc.record({
    method: fc.constantFrom("DELETE", "PATCH"),
    path: fc.constantFrom("/api/employee-directory", "/api/companies", "/api/health"),
    params: fc.constant({}),
    user: userArb,
  }),
  fc.record({
    method: fc.constant("POST"),
    path: fc.constant("/api/logon"),
    params: fc.constant({}),
    user: fc.constant<Probe["user"]>("none"),
    body: fc.constantFrom('{"username":"guest","password":"guest"}', '{"username":"guest","password":"nope"}'),
  }),
);

/** Examples that the property always runs first (in order, on fresh data): together they give every status the demo answers to such requests. */
const examples: Probe[] = [
  { method: "GET", path: "/api/companies", params: {}, user: "editor" },
  { method: "GET", path: "/api/orders/{id}", params: { id: 1 }, user: "editor" },
  { method: "GET", path: "/api/orders/find/{id}", params: { id: 1 }, user: "editor" },
  { method: "GET", path: "/api/orders/createnew", params: {}, user: "editor" },
  { method: "GET", path: "/api/employees/{id}", params: { id: 1 }, user: "editor" },
  { method: "GET", path: "/api/employee-directory", params: {}, user: "guest" },
  { method: "GET", path: "/api/companies/{id}", params: { id: "abc" }, user: "editor" },
  { method: "GET", path: "/api/companies", params: {}, user: "none" },
  { method: "GET", path: "/api/companies/createnew", params: {}, user: "guest" },
  { method: "GET", path: "/api/companies/{id}", params: { id: 99999 }, user: "editor" },
  { method: "DELETE", path: "/api/employee-directory", params: {}, user: "editor" },
  { method: "DELETE", path: "/api/companies/{id}/{version}", params: { id: 1, version: 2 }, user: "editor" },
  { method: "POST", path: "/api/companies", params: {}, user: "editor", body: '{"name": ""}' },
  {
    method: "POST",
    path: "/api/orders",
    params: {},
    user: "editor",
    body: '{"number": "X-1", "companyId": 1, "lines": [{"product": "Nail", "quantity": 2, "price": "0.10"}]}',
  },
  { method: "POST", path: "/api/logon", params: {}, user: "none", body: '{"username":"guest","password":"nope"}' },
  // The directory's companyName by its database column's name, in another case (seed 1767861874 found it).
  {
    method: "POST",
    path: "/api/employee-directory/select",
    params: {},
    user: "editor",
    body: '{"where": [{"columnName": "name", "condition": "LIKE", "value": "%"}], "orderBy": [{"columnName": "LASTNAME"}]}',
  },
  { method: "GET", path: "/api/companies/{id}", params: { id: 2 }, user: "guest", headers: { "If-None-Match": '"2-0"' } },
  {
    method: "PATCH",
    path: "/api/companies/{id}",
    params: { id: 2 },
    user: "editor",
    body: '{"name": "Stale Ltd"}',
    headers: { "If-Match": '"2-5"' },
  },
];

describe("the demo's OpenAPI document", () => {
  let demo: DemoProcess;
  let document: Document;
  let contract: OpenApiContract;
  let token = "";
  const ajv = new Ajv2020({ strict: false, validateFormats: false });

  /**
   * Asserts that `answer` to `method url` is one the document describes (status, media type, headers, body;
   * a method the path does not have must be a 405, or the 401 that authentication gives first), and that a
   * GET's success documents an ETag exactly where it answers one.
   */
  const conforms = (
    answer: Answer,
    url: string,
    method: string,
    request: Pick<Exchange, "headers" | "body"> = { headers: {}, body: undefined },
  ): void => {
    const problems = contract.problemsOf({ port: demo.port, method: method.toUpperCase(), path: url, ...request, answer });
    assert.deepEqual(problems, [], `${method} ${url}: ${answer.status} ${answer.text}`);
    const path = contract.operationPathOf(url, method);
    if (answer.status === 200 && method === "get" && path !== undefined) {
      const success = document.paths[path].get.responses["200"] as { headers?: Record<string, unknown> };
      assert.equal(
        success.headers?.ETag !== undefined,
        answer.headers.etag !== undefined,
        `${method} ${path} documents an ETag where it answers one`,
      );
    }
  };

  before(async () => {
    const db = await sqliteDemoEngine.open();
    demo = await startDemo(db.env);
    const logon = await ask(demo.port, "/api/logon", { method: "POST", body: JSON.stringify({ username: "admin", password: "admin" }) });
    token = (logon.json as { token: string }).token;
    const answer = await ask(demo.port, "/api/openapi.json");
    assert.equal(answer.status, 200, answer.text);
    assert.match(String(answer.headers["content-type"]), /^application\/json/);
    document = answer.json as Document;
    contract = new OpenApiContract(answer.json);
    ajv.addSchema({ ...(answer.json as object), $id: "https://tenon.invalid/openapi.json" });
  });
  after(async () => {
    await demo?.stop();
  });

  test("is served without credentials and validates as OpenAPI 3.1", async () => {
    const result = await new Validator().validate(structuredClone(document) as never);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
  });

  test("lists every demo route with its security, areas and placeholders", () => {
    const paths = Object.keys(document.paths).sort();
    for (const path of ["/api/companies", "/api/companies/{id}", "/api/companies/{id}/{version}", "/api/companies/select", "/api/logon"]) {
      assert.ok(paths.includes(path), `${path} in ${paths.join(" ")}`);
    }
    assert.deepEqual(document.paths["/api/logon"].post.security, []);
    assert.deepEqual(document.paths["/api/openapi.json"].get.security, []);
    assert.equal(document.paths["/api/companies"].get.security, undefined);
    const get = document.paths["/api/companies"].get as unknown as { "x-tenon-areas": string[]; description: string };
    assert.deepEqual(get["x-tenon-areas"], ["read"]);
    assert.match(get.description, /read/);
    const del = document.paths["/api/companies/{id}/{version}"].delete as unknown as { parameters: { schema: unknown }[] };
    assert.deepEqual(del.parameters[1].schema, { type: "integer", format: "int32" });
  });

  test("request bodies are described as the server reads them: new detail lines, bulk delete items, merge patches", () => {
    type Schema = { $ref?: string; required?: string[]; properties?: Record<string, Schema>; items?: Schema };
    const schemas = (document as unknown as { components: { schemas: Record<string, Schema> } }).components.schemas;
    // A new order line has no id, order or version yet: the server assigns them.
    assert.deepEqual(schemas.OrderInput.properties?.lines.items, { $ref: "#/components/schemas/OrderLineInput" });
    for (const member of ["id", "orderId", "versionId"]) assert.ok(!schemas.OrderLineInput.required?.includes(member), member);
    assert.ok(schemas.OrderLine.required?.includes("id"), "an answered line has its id");
    type Body = { requestBody: { content: Record<string, { schema: Schema }> } };
    const bulk = (document.paths["/api/orders/bulk"].post as unknown as Body).requestBody.content["application/json"].schema;
    assert.deepEqual(bulk.properties?.delete.items, { $ref: "#/components/schemas/OrderBulkDelete" });
    assert.deepEqual(schemas.OrderBulkDelete.required, ["id", "versionId"]);
    const patch = (document.paths["/api/orders/{id}"].patch as unknown as Body).requestBody.content;
    assert.deepEqual(Object.keys(patch), ["application/merge-patch+json", "application/json"]);
    type Answers = { responses: Record<string, { content?: Record<string, unknown> }> };
    const docs = (path: string): string[] => Object.keys((document.paths[path].get as unknown as Answers).responses["200"].content ?? {});
    assert.deepEqual(docs("/api/docs"), ["text/html"]);
    assert.deepEqual(docs("/api/docs/{file}"), ["text/css", "text/javascript"]);
  });

  test("a filter's columnName lists the JSON names and says which other names the server reads", () => {
    type Condition = { properties: { columnName: { enum: string[]; description: string } } };
    const schemas = (document as unknown as { components: { schemas: Record<string, Condition> } }).components.schemas;
    const columnName = schemas.EmployeeDirectoryFilterCondition.properties.columnName;
    assert.deepEqual(columnName.enum, ["id", "firstName", "lastName", "email", "companyName"]);
    assert.match(columnName.description, /database column name \(Name for companyName\), and either name in any case/);
  });

  // Before the property below, which changes and deletes rows.
  test("each preset has its own component where presets differ: find without nested objects, get with the details", async () => {
    const auth = { Authorization: `Bearer ${token}` };
    type Schemas = Record<string, { properties: Record<string, unknown>; required: string[] }>;
    const schemas = (document as unknown as { components: { schemas: Schemas } }).components.schemas;
    const schemaOf = (path: string): string =>
      (
        (document.paths[path].get.responses["200"] as { content: Record<string, { schema: { $ref: string } }> }).content["application/json"]
          .schema.$ref ?? ""
      )
        .split("/")
        .at(-1) ?? "";
    assert.equal(schemaOf("/api/orders/{id}"), "OrderWithDetails");
    assert.equal(schemaOf("/api/orders/find/{id}"), "OrderEntityOnly");
    assert.equal(schemaOf("/api/companies/{id}"), "Company", "an entity that expands nothing has one component");
    assert.equal(schemas.OrderEntityOnly.properties.company, undefined);
    assert.ok(schemas.OrderWithDetails.required.includes("lines"));
    assert.equal(schemas.OrderWithRelations.properties.lines, undefined);
    type Responses = Record<string, { headers?: Record<string, unknown> }>;
    const etagOf = (path: string, method: string): unknown => (document.paths[path][method].responses as Responses)["200"].headers?.ETag;
    for (const [path, method] of [
      ["/api/orders/{id}", "get"],
      ["/api/orders/find/{id}", "get"],
      ["/api/orders", "put"],
      ["/api/orders/{id}", "patch"],
    ])
      assert.ok(etagOf(path, method) !== undefined, `${method} ${path} documents its ETag`);
    for (const [path, method] of [
      ["/api/orders", "get"],
      ["/api/orders/select", "post"],
      ["/api/employee-directory/{id}", "get"],
    ])
      assert.equal(etagOf(path, method), undefined, `${method} ${path} answers no ETag`);
    const found = await ask(demo.port, "/api/orders/find/1", { headers: auth });
    assert.deepEqual(
      Object.keys(found.json as object).filter((key) => !(key in schemas.OrderEntityOnly.properties)),
      [],
    );
    conforms(found, "/api/orders/find/1", "get");
    const validate = ajv.getSchema("https://tenon.invalid/openapi.json#/components/schemas/OrderWithDetails");
    assert.ok(validate !== undefined);
    assert.equal(validate(found.json), false, "an entity-only answer lacks the details that get's preset requires");
  });

  test("real answers of generated requests to every route validate against the document (fast-check)", async (t) => {
    const tokens: Record<Probe["user"], string | undefined> = {
      none: undefined,
      badToken: "not.a.token",
      guest: undefined,
      editor: undefined,
    };
    for (const user of ["guest", "editor"] as const) {
      const answer = await ask(demo.port, "/api/logon", { method: "POST", body: JSON.stringify({ username: user, password: user }) });
      tokens[user] = (answer.json as { token: string }).token;
    }
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(probeArb, async (probe) => {
        const url = probe.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(probe.params[name])));
        const token = tokens[probe.user];
        const headers: Record<string, string> = { ...probe.headers, ...(token !== undefined ? { Authorization: `Bearer ${token}` } : {}) };
        if (probe.body !== undefined) {
          headers["Content-Type"] = "application/json";
          // node:http sends a DELETE's body without a length unless told: the server would read it as a new request.
          headers["Content-Length"] = String(Buffer.byteLength(probe.body));
        }
        const answer = await ask(demo.port, url, { method: probe.method, headers, body: probe.body });
        assert.ok(answer.status < 500, `${probe.method} ${url}: ${answer.status} ${answer.text}`);
        seen.add(answer.status);
        try {
          conforms(answer, url, probe.method.toLowerCase(), { headers, body: asDocumented(url, probe.body) });
        } catch (error) {
          throw new Error(`${probe.method} ${url} ${probe.body ?? ""}: ${answer.status} ${answer.text}`, { cause: error });
        }
      }),
      { numRuns: 150, examples: examples.map((probe) => [probe]) },
    );
    t.diagnostic(`statuses seen: ${[...seen].sort().join(", ")}`);
    for (const status of [200, 304, 400, 401, 403, 404, 405, 409, 412, 422])
      assert.ok(seen.has(status), `some answer was ${status}: ${[...seen]}`);
  });

  test("the server's own answers to oversized and unexpected requests validate too (413, 417, 431)", async () => {
    const auth = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
    const tooLarge = await ask(demo.port, "/api/companies", { method: "POST", headers: auth, body: `{"name": "${"x".repeat(1100000)}"}` });
    assert.equal(tooLarge.status, 413);
    conforms(tooLarge, "/api/companies", "post");
    const expectation = await ask(demo.port, "/api/companies", { method: "POST", headers: { ...auth, Expect: "teapot" }, body: "{}" });
    assert.equal(expectation.status, 417);
    conforms(expectation, "/api/companies", "post");
    const headers = await ask(demo.port, "/api/companies", { headers: { ...auth, "X-Big": "y".repeat(20000) } });
    assert.equal(headers.status, 431);
    conforms(headers, "/api/companies", "get");
  });

  test("the contract check fails on an undocumented status, media type, header or body (the check can fail)", async () => {
    const auth = { Authorization: `Bearer ${token}` };
    const list = await ask(demo.port, "/api/companies", { headers: auth });
    const exchange: Exchange = { port: demo.port, method: "GET", path: "/api/companies", headers: auth, body: undefined, answer: list };
    assert.deepEqual(contract.problemsOf(exchange), []);
    const problemOf = (answer: Partial<Answer>, request: Partial<Exchange> = {}): string[] =>
      contract.problemsOf({ ...exchange, ...request, answer: { ...list, ...answer } });
    assert.match(problemOf({ json: undefined, text: '{"count": "many", "data": []}' }).join(), /does not fit the schema/);
    assert.match(problemOf({ status: 201 }).join(), /status 201 is not documented/);
    assert.match(problemOf({ headers: { ...list.headers, "content-type": "text/html" } }).join(), /media type text\/html is not one of/);
    assert.match(problemOf({ headers: { ...list.headers, "x-secret": "1" } }).join(), /header x-secret is not documented/);
    assert.match(problemOf({}, { method: "HEAD" }).join(), /a HEAD answer has a body/);
    assert.match(problemOf({ status: 200 }, { method: "TRACE" }).join(), /no operation trace/);
    assert.match(problemOf({ status: 200 }, { path: "/api/nowhere" }).join(), /no operation get/);
    const plainText = { method: "PATCH", path: "/api/companies/1", headers: { "Content-Type": "text/plain" }, body: "{}" };
    assert.match(problemOf({}, plainText).join(), /request media type text\/plain is not one of/);
  });
});
