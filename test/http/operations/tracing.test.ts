import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, beforeEach, describe, test } from "node:test";
import { context, propagation, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { PostgresDatabase } from "../../../src/engines/postgres/postgres-database.js";
import { SqliteDatabase } from "../../../src/engines/sqlite/sqlite-database.js";
import { HttpController } from "../../../src/http/exchange/http-controller.js";
import type { HttpServer } from "../../../src/http/server/http-server.js";
import { Get, Uri } from "../../../src/http/routing/route-decorators.js";
import { Context } from "../../../src/session/context.js";
import { ask, started } from "../http-test-client.js";

const directory = mkdtempSync(join(tmpdir(), "tenon-tracing-"));
const sqlite = new SqliteDatabase({ filename: join(directory, "tracing.sqlite") });
const postgres = new PostgresDatabase({ connectionString: "postgres://postgres@127.0.0.1:5432/test", poolSize: 2 });
const secret = 424242;

class Ctx {
  #sessions: Context[] = [];
  session(database: SqliteDatabase | PostgresDatabase): Context {
    const session = new Context(database);
    this.#sessions.push(session);
    return session;
  }
  async [Symbol.asyncDispose](): Promise<void> {
    for (const session of this.#sessions) await session.dispose();
  }
}

@Uri("/things")
class ThingsController extends HttpController<Ctx> {
  @Get("?")
  async one(id: number): Promise<unknown> {
    const session = this.context.session(sqlite);
    const [[value]] = await session.query("SELECT :id + :secret AS id", { id, secret });
    await session.query("SELECT 1 WHERE 1 = :no", { no: secret });
    return { value };
  }

  @Get("pg/?")
  async fromPostgres(id: number): Promise<unknown> {
    const [[value]] = await this.context.session(postgres).query("SELECT CAST(:id AS integer) + :secret", { id, secret });
    return { value };
  }

  @Get("broken/handler")
  broken(): unknown {
    throw new TypeError("broken");
  }
}

const exporter = new InMemorySpanExporter();
const spansOf = (traceId: string): ReadableSpan[] => exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
const serverSpan = (): ReadableSpan => {
  const found = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER);
  assert.equal(found.length, 1, JSON.stringify(found.map((s) => s.name)));
  return found[0];
};

/** Waits until the server span of the last request has ended (it ends after the answer is written). */
async function settled(): Promise<void> {
  for (let i = 0; i < 100 && !exporter.getFinishedSpans().some((span) => span.kind === SpanKind.SERVER); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("OpenTelemetry tracing", () => {
  let server: HttpServer<Ctx>;
  let untraced: HttpServer<Ctx>;

  before(async () => {
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    server = await started(Ctx, (s) => {
      s.baseUri = "/api";
      s.allowAnonymous = true;
      s.tracing = true;
      s.registerController(ThingsController);
    });
    untraced = await started(Ctx, (s) => {
      s.baseUri = "/api";
      s.allowAnonymous = true;
      s.registerController(ThingsController);
    });
  });

  beforeEach(() => exporter.reset());

  after(async () => {
    await server.stop();
    await untraced.stop();
    trace.disable();
    context.disable();
    propagation.disable();
    await sqlite.close();
    await postgres.close();
    rmSync(directory, { recursive: true, force: true });
  });

  test("a request makes one server span named by its route template, with the stable HTTP attributes", async () => {
    assert.equal((await ask(server.port, "/api/things/7")).status, 200);
    await settled();
    const span = serverSpan();
    assert.equal(span.name, "GET /api/things/?");
    assert.equal(span.kind, SpanKind.SERVER);
    assert.equal(span.attributes["http.request.method"], "GET");
    assert.equal(span.attributes["http.route"], "/api/things/?");
    assert.equal(span.attributes["http.response.status_code"], 200);
    assert.equal(span.attributes["url.path"], "/api/things/7");
    assert.equal(span.attributes["url.scheme"], "http");
    assert.notEqual(span.status.code, SpanStatusCode.ERROR);
  });

  test("each SQL statement is a child span with the database conventions and its text, never its parameters", async () => {
    await ask(server.port, "/api/things/7");
    await settled();
    const parent = serverSpan();
    const statements = spansOf(parent.spanContext().traceId).filter((span) => span.kind === SpanKind.CLIENT);
    assert.equal(statements.length, 2);
    for (const span of statements) {
      assert.equal(span.parentSpanContext?.spanId, parent.spanContext().spanId);
      assert.equal(span.name, "SELECT");
      assert.equal(span.attributes["db.system.name"], "sqlite");
      assert.equal(span.attributes["db.operation.name"], "SELECT");
      assert.match(String(span.attributes["db.query.text"]), /^SELECT /);
      assert.ok(!JSON.stringify(span.attributes).includes(String(secret)), JSON.stringify(span.attributes));
    }
  });

  test("on PostgreSQL the statement span says postgresql", async () => {
    assert.equal((await ask(server.port, "/api/things/pg/3")).status, 200);
    await settled();
    const statement = exporter.getFinishedSpans().find((span) => span.kind === SpanKind.CLIENT);
    assert.equal(statement?.attributes["db.system.name"], "postgresql");
    assert.ok(!JSON.stringify(statement?.attributes).includes(String(secret)));
  });

  test("an incoming traceparent makes the server span a child of the caller's span", async () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const parentId = "00f067aa0ba902b7";
    await ask(server.port, "/api/things/1", { headers: { traceparent: `00-${traceId}-${parentId}-01` } });
    await settled();
    const span = serverSpan();
    assert.equal(span.spanContext().traceId, traceId);
    assert.equal(span.parentSpanContext?.spanId, parentId);
    assert.equal(span.parentSpanContext?.isRemote, true);
  });

  test("a malformed traceparent starts a new trace", async () => {
    await ask(server.port, "/api/things/1", { headers: { traceparent: "00-zz-yy-01" } });
    await settled();
    assert.equal(serverSpan().parentSpanContext, undefined);
  });

  test("a path no route answers keeps the method as name, without http.route; a 500 marks the span as failed", async () => {
    assert.equal((await ask(server.port, "/api/nowhere/1")).status, 404);
    await settled();
    const missing = serverSpan();
    assert.equal(missing.name, "GET");
    assert.equal(missing.attributes["http.route"], undefined);
    assert.equal(missing.attributes["http.response.status_code"], 404);
    exporter.reset();
    assert.equal((await ask(server.port, "/api/things/broken/handler")).status, 500);
    await settled();
    assert.equal(serverSpan().status.code, SpanStatusCode.ERROR);
  });

  test("a CORS preflight gets a span of its own: OPTIONS, no route, 200", async () => {
    exporter.reset();
    assert.equal((await ask(server.port, "/api/things/1", { method: "OPTIONS" })).status, 200);
    await settled();
    const preflight = serverSpan();
    assert.equal(preflight.name, "OPTIONS");
    assert.equal(preflight.attributes["http.route"], undefined);
    assert.equal(preflight.attributes["http.response.status_code"], 200);
  });

  test("a server without tracing makes no span, and its statements none either", async () => {
    assert.equal((await ask(untraced.port, "/api/things/2")).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER).length, 0);
  });
});
