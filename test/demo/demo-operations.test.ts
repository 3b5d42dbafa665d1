// The demo's operations features: request ids, and Prometheus metrics on a second port with a token.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ask, recordExchanges } from "../http/http-test-client.js";
import { parseExposition, samplesOf } from "../http/operations/exposition.js";
import { type DemoDatabase, sqliteDemoEngine } from "./demo-engines.js";
import { type DemoProcess, startDemo } from "./demo-process.js";
import { OpenApiContract } from "./openapi-contract.js";

const metricsToken = "demo-metrics-token-0123";

/** The metrics port the demo printed, once it has. */
async function metricsPortOf(demo: DemoProcess): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const match = /Metrics on http:\/\/127\.0\.0\.1:(\d+)\/metrics \(Authorization: Bearer (\S+)\)/.exec(demo.output());
    if (match !== null) {
      assert.equal(match[2], metricsToken);
      return Number(match[1]);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`no metrics line: ${demo.output()}`);
}

describe("the demo's operations", () => {
  let db: DemoDatabase;
  let demo: DemoProcess;

  before(async () => {
    db = await sqliteDemoEngine.open();
    demo = await startDemo({ ...db.env, METRICS_TOKEN: metricsToken });
  });
  after(async () => {
    await demo?.stop();
    await db?.close();
  });

  test("every answer carries a request id, the caller's when well-formed", async () => {
    assert.match(String((await ask(demo.port, "/api/live")).headers["x-request-id"]), /^[0-9a-f-]{36}$/);
    assert.equal((await ask(demo.port, "/api/live", { headers: { "X-Request-Id": "demo-1" } })).headers["x-request-id"], "demo-1");
  });

  test("serves Prometheus metrics on a second port, only with the token", async () => {
    const port = await metricsPortOf(demo);
    assert.notEqual(port, demo.port);
    await ask(demo.port, "/api/companies");
    assert.equal((await ask(port, "/metrics")).status, 401);
    const answer = await ask(port, "/metrics", { headers: { authorization: `Bearer ${metricsToken}` } });
    assert.equal(answer.status, 200);
    const metrics = parseExposition(answer.text);
    assert.ok(samplesOf(metrics, "tenon_http_request_duration_seconds_count", { route: "/api/live", status: "200" }).length === 1);
    assert.ok(samplesOf(metrics, "tenon_http_request_duration_seconds_count", { route: "/api/companies", status: "401" }).length === 1);
    assert.equal(samplesOf(metrics, "tenon_db_pool_connections", { database: "demo" }).length, 2);
    assert.equal(samplesOf(metrics, "tenon_log_queue_depth", { writer: "JsonLinesLogWriter" }).length, 1);
  });
});

describe("the demo with OTEL=console and RATE_LIMIT", () => {
  let db: DemoDatabase;
  let demo: DemoProcess;

  before(async () => {
    db = await sqliteDemoEngine.open();
    demo = await startDemo({ ...db.env, OTEL: "console", RATE_LIMIT: "4", METRICS_PORT: "off", SLOW_REQUEST_MS: "0" });
  });
  after(async () => {
    await demo?.stop();
    await db?.close();
  });

  test("prints a span per request, named by its route template, and one per SQL statement", async () => {
    const logon = await ask(demo.port, "/api/logon", { method: "POST", body: JSON.stringify({ username: "guest", password: "guest" }) });
    assert.equal(logon.status, 200);
    const token = (logon.json as { token: string }).token;
    assert.equal((await ask(demo.port, "/api/companies/1", { headers: { authorization: `Bearer ${token}` } })).status, 200);
    for (let i = 0; i < 100 && !/name: 'GET \/api\/companies\/\?'/.test(demo.output()); i++) await new Promise((r) => setTimeout(r, 50));
    assert.match(demo.output(), /name: 'GET \/api\/companies\/\?'/);
    assert.match(demo.output(), /'db\.system\.name': 'sqlite'/);
    assert.match(demo.output(), /'http\.route': '\/api\/companies\/\?'/);
  });

  test("limits each address: past RATE_LIMIT requests a minute it answers 429 with Retry-After", async () => {
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof ask>> | undefined;
    for (let i = 0; i < 6; i++) {
      last = await ask(demo.port, "/api/live", { headers: { "X-Forwarded-For": "198.51.100.9" } });
      statuses.push(last.status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
    assert.ok(Number(last?.headers["retry-after"]) > 0);
    assert.match(String(last?.headers["ratelimit-policy"]), /"address";q=4;w=60/);
  });

  test("the served document describes the RateLimit headers that a limited route's success carries, beside its ETag", async () => {
    const document = (await ask(demo.port, "/api/openapi.json", { headers: { "X-Forwarded-For": "198.51.100.10" } })).json as {
      paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>;
    };
    const documented = Object.keys(document.paths["/api/companies/{id}"].get.responses["200"].headers ?? {}).sort();
    assert.deepEqual(documented, ["ETag", "RateLimit", "RateLimit-Policy"]);
    const address = { "X-Forwarded-For": "198.51.100.11" };
    const logon = await ask(demo.port, "/api/logon", {
      method: "POST",
      headers: address,
      body: JSON.stringify({ username: "guest", password: "guest" }),
    });
    const token = (logon.json as { token: string }).token;
    const company = await ask(demo.port, "/api/companies/1", { headers: { ...address, authorization: `Bearer ${token}` } });
    assert.equal(company.status, 200);
    for (const name of documented) assert.ok(company.headers[name.toLowerCase()] !== undefined, `the answer carries ${name}`);
  });

  test("the error answers of a limited request carry the RateLimit headers, and the served document describes each answer", async () => {
    const address = { "X-Forwarded-For": "198.51.100.12" };
    const recording = recordExchanges(() => demo.port);
    try {
      const anonymous = await ask(demo.port, "/api/companies", { headers: address });
      const unknown = await ask(demo.port, "/api/nowhere", { headers: address });
      const badLogon = await ask(demo.port, "/api/logon", { method: "POST", headers: address, body: "{" });
      assert.deepEqual([anonymous.status, unknown.status, badLogon.status], [401, 401, 400]);
      for (const answer of [anonymous, unknown, badLogon]) {
        assert.match(String(answer.headers["ratelimit-policy"]), /"address";q=4;w=60/, answer.text);
        assert.match(String(answer.headers.ratelimit), /"address";r=\d+;t=\d+/, answer.text);
      }
      const document = await ask(demo.port, "/api/openapi.json", { headers: { "X-Forwarded-For": "198.51.100.13" } });
      new OpenApiContract(document.json).assertConform(recording.exchanges);
    } finally {
      recording.stop();
    }
  });
});
