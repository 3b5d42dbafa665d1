// The demo's OpenAPI document: it is served anonymously, it is a valid OpenAPI 3.1 document, and real
// answers of the running demo validate against the schemas the document gives for them.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import { ask, type Answer } from "../http/http-test-client.js";
import { sqliteDemoEngine } from "./demo-engines.js";
import { startDemo, type DemoProcess } from "./demo-process.js";

type Document = { paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown[] }>> };

const documentId = "https://tenon.invalid/openapi.json";

/** A JSON pointer segment. */
const pointerSegment = (segment: string): string => segment.replace(/~/g, "~0").replace(/\//g, "~1");

describe("the demo's OpenAPI document", () => {
  let demo: DemoProcess;
  let document: Document;
  let token = "";
  const ajv = new Ajv2020({ strict: false, validateFormats: false });

  /** Asserts that `answer` is valid against the document's schema of `path` `method` for its status. */
  const conforms = (answer: Answer, path: string, method: string): void => {
    const responses = document.paths[path]?.[method]?.responses;
    assert.ok(responses !== undefined, `${method} ${path} is in the document`);
    const response = responses[String(answer.status)] as { $ref?: string } | undefined;
    assert.ok(response !== undefined, `${method} ${path} documents status ${answer.status}`);
    const pointer =
      response.$ref !== undefined
        ? `${response.$ref.slice(1)}/content/application~1json/schema`
        : `/paths/${pointerSegment(path)}/${method}/responses/${answer.status}/content/application~1json/schema`;
    const validate = ajv.getSchema(`${documentId}#${pointer}`);
    assert.ok(validate !== undefined, pointer);
    assert.ok(validate(answer.json), `${method} ${path} ${answer.status}: ${answer.text}\n${JSON.stringify(validate.errors)}`);
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
    ajv.addSchema({ ...(answer.json as object), $id: documentId });
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

  test("real answers of the demo validate against the document's schemas", async () => {
    const auth = { Authorization: `Bearer ${token}` };
    const list = await ask(demo.port, "/api/companies", { headers: auth });
    conforms(list, "/api/companies", "get");
    const id = (list.json as { data: { id: number }[] }).data[0].id;
    conforms(await ask(demo.port, `/api/companies/${id}`, { headers: auth }), "/api/companies/{id}", "get");
    conforms(await ask(demo.port, `/api/employees/${id}`, { headers: auth }), "/api/employees/{id}", "get");
    conforms(await ask(demo.port, "/api/orders", { headers: auth }), "/api/orders", "get");
    const missing = await ask(demo.port, "/api/companies/99999", { headers: auth });
    assert.equal(missing.status, 404);
    conforms(missing, "/api/companies/{id}", "get");
    const anonymous = await ask(demo.port, "/api/companies");
    assert.equal(anonymous.status, 401);
    conforms(anonymous, "/api/companies", "get");
    const invalid = await ask(demo.port, "/api/companies", {
      method: "POST",
      headers: { ...auth, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "" }),
    });
    assert.equal(invalid.status, 422, invalid.text);
    conforms(invalid, "/api/companies", "post");
    const selected = await ask(demo.port, "/api/companies/select", {
      method: "POST",
      headers: { ...auth, "Content-Type": "application/json" },
      body: JSON.stringify({ where: [{ columnName: "name", condition: "LIKE", value: "A%" }] }),
    });
    conforms(selected, "/api/companies/select", "post");
  });

  test("a document that does not describe an answer fails the check (the check can fail)", async () => {
    const list = await ask(demo.port, "/api/companies", { headers: { Authorization: `Bearer ${token}` } });
    const wrong = { ...list, json: { count: "many", data: [] } };
    assert.throws(() => conforms(wrong, "/api/companies", "get"));
  });
});
