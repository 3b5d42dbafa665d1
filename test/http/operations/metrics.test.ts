import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PerformanceEntry, PerformanceObserver, performance } from "node:perf_hooks";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import type { Database } from "../../../src/engines/database.js";
import { PostgresDatabase } from "../../../src/engines/postgres/postgres-database.js";
import { SqliteDatabase } from "../../../src/engines/sqlite/sqlite-database.js";
import { DatabasePoolFigures } from "../../../src/http/crud/database-pool-figures.js";
import { HttpController } from "../../../src/http/exchange/http-controller.js";
import { HttpServerError } from "../../../src/http/exchange/http-errors.js";
import { HttpServer } from "../../../src/http/server/http-server.js";
import { HttpLogParameters } from "../../../src/http/logging/http-log-parameters.js";
import { Get, Post, Uri } from "../../../src/http/routing/route-decorators.js";
import { Context } from "../../../src/session/context.js";
import { ask, started } from "../http-test-client.js";
import { Gate, Recording, recordingWriter } from "../logging/recording-writer.js";
import { type Exposition, parseExposition, samplesOf, seriesCount, sampleValue } from "./exposition.js";

const token = "scrape-token-0123456789";
const pgUrl = "postgres://postgres@127.0.0.1:5432/test";
const directory = mkdtempSync(join(tmpdir(), "tenon-metrics-"));
const sqlite = new SqliteDatabase({ filename: join(directory, "metrics.sqlite") });
let postgres: PostgresDatabase;

/** Each request's context: a session on SQLite, or on PostgreSQL for the /pg routes. */
class Ctx {
  #sqlite: Context | undefined;
  #postgres: Context | undefined;
  get sqlite(): Context {
    this.#sqlite ??= new Context(sqlite);
    return this.#sqlite;
  }
  get postgres(): Context {
    this.#postgres ??= new Context(postgres);
    return this.#postgres;
  }
  async [Symbol.asyncDispose](): Promise<void> {
    await this.#sqlite?.dispose();
    await this.#postgres?.dispose();
  }
}

@Uri("/things")
class ThingsController extends HttpController<Ctx> {
  @Get("?")
  async one(id: number): Promise<unknown> {
    const rows = await this.context.sqlite.query("SELECT :id AS id", { id });
    return { id: rows[0][0] };
  }

  @Post()
  async create(): Promise<unknown> {
    await this.context.sqlite.execute("INSERT INTO things (name) VALUES (:name)", { name: "x" });
    await this.context.sqlite.execute("UPDATE things SET name = :name", { name: "y" });
    await this.context.sqlite.execute("DELETE FROM things WHERE name = :name", { name: "z" });
    return { created: true };
  }

  @Get("broken/sql")
  async broken(): Promise<unknown> {
    return this.context.sqlite.query("SELECT nothing FROM nowhere");
  }

  /** A transaction whose connection is terminated once, so that it is retried on a new one. */
  @Post("pg/retried")
  async retried(): Promise<unknown> {
    let attempt = 0;
    await this.context.postgres.transaction(
      async () => {
        attempt++;
        const [[pid]] = await this.context.postgres.query("SELECT pg_backend_pid()");
        if (attempt === 1) {
          const admin = new pg.Client({ connectionString: pgUrl });
          await admin.connect();
          await admin.query("SELECT pg_terminate_backend($1)", [pid]);
          await admin.end();
        }
        await this.context.postgres.query("SELECT 1");
      },
      { retry: 2 },
    );
    return { attempts: attempt };
  }
}

function scrape(port: number, headers: Record<string, string> = { authorization: `Bearer ${token}` }, path = "/metrics") {
  return ask(port, path, { headers });
}

async function exposition(server: HttpServer<Ctx>): Promise<Exposition> {
  const answer = await scrape(server.metricsPort);
  assert.equal(answer.status, 200, answer.text);
  assert.match(String(answer.headers["content-type"]), /^text\/plain; version=0\.0\.4/);
  return parseExposition(answer.text);
}

const duration = "tenon_http_request_duration_seconds";

describe("Prometheus metrics", () => {
  const recording = new Recording();
  const gate = new Gate();
  let server: HttpServer<Ctx>;

  before(async () => {
    postgres = new PostgresDatabase({ connectionString: pgUrl, poolSize: 3 });
    const setup = new Context(sqlite);
    await setup.execute("CREATE TABLE IF NOT EXISTS things (name TEXT)");
    await setup.dispose();
    server = await started(Ctx, (s) => {
      s.baseUri = "/api";
      s.allowAnonymous = true;
      s.registerController(ThingsController);
      s.registerLogWriter(recordingWriter(recording, { gate: () => gate.wait() }), new HttpLogParameters({ queueCapacity: 5 }));
      s.metrics = {
        port: 0,
        token,
        pools: [new DatabasePoolFigures("main", postgres), new DatabasePoolFigures("embedded", sqlite as Database)],
      };
    });
  });

  after(async () => {
    gate.open();
    await server.stop();
    await postgres.close();
    await sqlite.close();
    rmSync(directory, { recursive: true, force: true });
  });

  test("are served on their own port, never the API's, and only with the token", async () => {
    assert.ok(server.metricsPort > 0);
    assert.notEqual(server.metricsPort, server.port);
    assert.equal((await ask(server.port, "/metrics")).status, 404);
    const anonymous = await scrape(server.metricsPort, {});
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.headers["www-authenticate"], 'Bearer realm="metrics"');
    assert.equal((await scrape(server.metricsPort, { authorization: `Bearer ${token}x` })).status, 401);
    assert.equal((await scrape(server.metricsPort, { authorization: `Basic ${token}` })).status, 401);
    assert.equal((await scrape(server.metricsPort, { authorization: `Bearer ${token}` }, "/other")).status, 404);
    assert.equal(
      (await ask(server.metricsPort, "/metrics", { method: "POST", headers: { authorization: `Bearer ${token}` } })).status,
      405,
    );
  });

  test("count requests by method, route template and status, with latency buckets and body bytes", async () => {
    for (const id of [1, 2, 3]) assert.equal((await ask(server.port, `/api/things/${id}`)).status, 200);
    assert.equal((await ask(server.port, "/api/things/abc")).status, 400);
    assert.equal((await ask(server.port, "/api/things", { method: "POST", body: '{"a":1}' })).status, 200);
    const metrics = await exposition(server);
    assert.equal(metrics.types.get(duration), "histogram");
    assert.equal(sampleValue(metrics, `${duration}_count`, { method: "GET", route: "/api/things/?", status: "200" }), 3);
    assert.equal(sampleValue(metrics, `${duration}_count`, { method: "GET", route: "/api/things/?", status: "400" }), 1);
    assert.equal(sampleValue(metrics, `${duration}_bucket`, { method: "GET", route: "/api/things/?", status: "200", le: "+Inf" }), 3);
    const buckets = samplesOf(metrics, `${duration}_bucket`, { route: "/api/things/?", status: "200" }).map((s) => s.value);
    assert.deepEqual(
      [...buckets].sort((a, b) => a - b),
      buckets,
      "buckets are cumulative",
    );
    assert.ok(sampleValue(metrics, `${duration}_sum`, { method: "GET", route: "/api/things/?", status: "200" }) > 0);
    assert.equal(sampleValue(metrics, "tenon_http_request_body_bytes_total", { method: "POST", route: "/api/things", status: "200" }), 7);
    assert.equal(
      sampleValue(metrics, "tenon_http_response_body_bytes_total", { method: "POST", route: "/api/things", status: "200" }),
      Buffer.byteLength('{"created":true}'),
    );
    assert.equal(metrics.types.get("tenon_http_requests_in_flight"), "gauge");
    assert.equal(sampleValue(metrics, "tenon_http_requests_in_flight"), 0);
    assert.ok(samplesOf(metrics, "process_cpu_user_seconds_total").length === 1, "process metrics are there");
  });

  test("report the process figures prom-client's defaults report, under the same names and types", async () => {
    const prom = await import("prom-client");
    const reference = new prom.Registry();
    prom.collectDefaultMetrics({ register: reference });
    const expected = new Map((await reference.getMetricsAsJSON()).map((metric) => [metric.name, String(metric.type)]));
    const metrics = await exposition(server);
    const served = new Map([...metrics.types].filter(([name]) => !name.startsWith("tenon_")));
    assert.deepEqual([...served.keys()].sort(), [...expected.keys()].sort());
    for (const [name, type] of expected) assert.equal(served.get(name), type, name);
  });

  test("count every garbage collection, not one per batch of them that Node delivers", async () => {
    const collections = (m: Exposition) => samplesOf(m, "nodejs_gc_duration_seconds_count").reduce((sum, s) => sum + s.value, 0);
    const before = collections(await exposition(server));
    const seen: PerformanceEntry[] = [];
    const observer = new PerformanceObserver((list) => seen.push(...list.getEntries()));
    observer.observe({ entryTypes: ["gc"] });
    const from = performance.now();
    // Short-lived objects in a loop that does not yield: young-generation collections, which Node hands to every
    // observer in one batch once the loop has ended (prom-client's own histogram counted the first of each batch).
    let kept: object[] = [];
    for (let i = 0; i < 2_000_000; i++) {
      kept.push({ i, text: `x${i}` });
      if (kept.length > 1000) kept = [];
    }
    const to = performance.now();
    for (let turn = 0; turn < 10_000 && !seen.some((entry) => entry.startTime >= from); turn++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    observer.disconnect();
    const during = seen.filter((entry) => entry.startTime >= from && entry.startTime <= to).length;
    assert.ok(during >= 10, `the loop made ${during} collections`);
    const metrics = await exposition(server);
    assert.equal(metrics.types.get("nodejs_gc_duration_seconds"), "histogram");
    const counted = collections(metrics) - before;
    assert.ok(counted >= during, `${counted} collections counted, Node reported ${during}`);
    assert.equal(samplesOf(metrics, "nodejs_gc_duration_seconds_count", { kind: "minor" }).length, 1);
    assert.ok(sampleValue(metrics, "nodejs_gc_duration_seconds_bucket", { kind: "minor", le: "+Inf" }) >= during);
  });

  test("each standard method is a label of its own, whatever the route answers", async () => {
    const methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
    const before = await exposition(server);
    const counted = (m: Exposition, labels: Record<string, string>) =>
      samplesOf(m, `${duration}_count`, labels).reduce((sum, sample) => sum + sample.value, 0);
    for (const method of methods) await ask(server.port, "/api/things/1", { method });
    const metrics = await exposition(server);
    for (const method of methods) assert.equal(counted(metrics, { method }) - counted(before, { method }), 1, method);
    assert.equal(counted(metrics, { method: "other" }), counted(before, { method: "other" }));
    // A CORS preflight is answered before routing: counted, with no route, as the 200 it is.
    const preflight = { method: "OPTIONS", route: "<unmatched>", status: "200" };
    assert.equal(counted(metrics, preflight) - counted(before, preflight), 1);
  });

  test("1,000 distinct raw paths add no series: they count under their route template, or under <unmatched>", async () => {
    await ask(server.port, "/api/nowhere/0");
    await ask(server.port, "/api/things/999");
    await ask(server.port, "/api/things/1", { method: "PROPFIND" });
    const first = await exposition(server);
    const before = seriesCount(first, "tenon_http_");
    const unmatched = sampleValue(first, `${duration}_count`, { method: "GET", route: "<unmatched>", status: "404" });
    for (let i = 0; i < 1000; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          ask(server.port, (i + j) % 2 === 0 ? `/api/things/${1000 + i + j}` : `/api/nowhere/${i + j}?q=${i}`),
        ),
      );
    }
    await ask(server.port, "/api/things/1", { method: "PROPFIND" });
    const metrics = await exposition(server);
    assert.equal(seriesCount(metrics, "tenon_http_"), before);
    assert.equal(sampleValue(metrics, `${duration}_count`, { method: "GET", route: "<unmatched>", status: "404" }), unmatched + 500);
    assert.equal(sampleValue(metrics, `${duration}_count`, { method: "other", route: "<unmatched>", status: "405" }), 2);
    assert.ok(!metrics.samples.some((s) => s.labels.route?.includes("nowhere/") || /\/things\/\d/.test(s.labels.route ?? "")));
  });

  test("count statements by kind with their latency, and failed ones", async () => {
    const before = await exposition(server);
    const select = (m: Exposition) => sampleValue(m, "tenon_db_statement_duration_seconds_count", { kind: "select" });
    assert.equal((await ask(server.port, "/api/things", { method: "POST" })).status, 200);
    assert.equal((await ask(server.port, "/api/things/7")).status, 200);
    assert.equal((await ask(server.port, "/api/things/broken/sql")).status, 500);
    const metrics = await exposition(server);
    assert.equal(select(metrics) - select(before), 2);
    for (const kind of ["insert", "update", "delete"]) {
      assert.equal(
        sampleValue(metrics, "tenon_db_statement_duration_seconds_count", { kind }) -
          sampleValue(before, "tenon_db_statement_duration_seconds_count", { kind }),
        1,
        kind,
      );
    }
    assert.equal(
      sampleValue(metrics, "tenon_db_statement_failures_total", { kind: "select" }) -
        sampleValue(before, "tenon_db_statement_failures_total", { kind: "select" }),
      1,
    );
  });

  test("count retries and transient failures: a transaction whose connection is cut is retried once", async () => {
    const before = await exposition(server);
    const answer = await ask(server.port, "/api/things/pg/retried", { method: "POST" });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.json, { attempts: 2 });
    const metrics = await exposition(server);
    assert.equal(sampleValue(metrics, "tenon_db_retries_total") - sampleValue(before, "tenon_db_retries_total"), 1);
    assert.ok(sampleValue(metrics, "tenon_db_transient_failures_total") - sampleValue(before, "tenon_db_transient_failures_total") >= 1);
  });

  test("report pool connections in use, idle and waiting per database", async () => {
    const held = await postgres.acquire();
    try {
      const metrics = await exposition(server);
      assert.equal(sampleValue(metrics, "tenon_db_pool_connections", { database: "main", state: "in_use" }), 1);
      assert.ok(sampleValue(metrics, "tenon_db_pool_connections", { database: "main", state: "idle" }) >= 0);
      assert.equal(sampleValue(metrics, "tenon_db_pool_waiting", { database: "main" }), 0);
      assert.equal(sampleValue(metrics, "tenon_db_pool_connections", { database: "embedded", state: "in_use" }), 0);
    } finally {
      held.release();
    }
  });

  test("report the log queue's depth and its discards per writer", async () => {
    const writer = recordingWriter(recording).name;
    for (let i = 0; i < 6; i++) await ask(server.port, "/api/things/1");
    const metrics = await exposition(server);
    assert.equal(sampleValue(metrics, "tenon_log_queue_depth", { writer }), 5);
    assert.ok(sampleValue(metrics, "tenon_log_discarded_total", { writer }) >= 7);
    gate.open();
  });
});

describe("metrics settings", () => {
  test("are off by default, and a server without them opens no other port", async () => {
    const server = await started(Ctx, (s) => {
      s.allowAnonymous = true;
    });
    try {
      assert.equal(server.metrics, undefined);
      assert.equal(server.metricsPort, 0);
    } finally {
      await server.stop();
    }
  });

  for (const [what, options, message] of [
    ["a short token", { port: 0, token: "short" }, /at least 16 characters/],
    ["no token", { port: 0 } as { port: number; token: string }, /at least 16 characters/],
    ["a port out of range", { port: 70000, token }, /not an integer between 0 and 65535/],
    ["a host name as bind address", { port: 0, token, bindAddress: "localhost" }, /not an IPv4 or IPv6 literal/],
    ["a relative path", { port: 0, token, path: "metrics" }, /must start with '\/'/],
  ] as const) {
    test(`refuse ${what}`, () => {
      const server = new HttpServer(Ctx);
      assert.throws(
        () => {
          server.metrics = options;
        },
        (error: unknown) => error instanceof HttpServerError && message.test(error.message),
      );
      assert.equal(server.metrics, undefined);
    });
  }

  test("cannot change while the server runs", async () => {
    const server = await started(Ctx, (s) => {
      s.allowAnonymous = true;
    });
    try {
      assert.throws(() => {
        server.metrics = { port: 0, token };
      }, HttpServerError);
    } finally {
      await server.stop();
    }
  });
});
