import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { SqliteDatabase } from "../../../src/engines/sqlite/sqlite-database.js";
import { HttpController } from "../../../src/http/exchange/http-controller.js";
import { HttpServerError } from "../../../src/http/exchange/http-errors.js";
import { HttpServer } from "../../../src/http/server/http-server.js";
import { Get, Uri } from "../../../src/http/routing/route-decorators.js";
import { Context } from "../../../src/session/context.js";
import { ask, started } from "../http-test-client.js";
import { Recording, recordingWriter } from "../logging/recording-writer.js";

const directory = mkdtempSync(join(tmpdir(), "tenon-slow-"));
const database = new SqliteDatabase({ filename: join(directory, "slow.sqlite") });
const secret = "s3cr3t-value";

class Ctx {
  readonly session = new Context(database);
  [Symbol.asyncDispose](): Promise<void> {
    return this.session.dispose();
  }
}

@Uri("/work")
class WorkController extends HttpController<Ctx> {
  @Get("slow")
  async slow(): Promise<unknown> {
    await this.context.session.query("SELECT :secret AS first", { secret });
    await new Promise((resolve) => setTimeout(resolve, 120));
    await this.context.session.query("SELECT length(:secret) AS second", { secret });
    try {
      await this.context.session.query("SELECT nothing FROM nowhere WHERE x = :secret", { secret });
    } catch {
      // the failed statement is listed as failed
    }
    return { done: true };
  }

  @Get("fast")
  async fast(): Promise<unknown> {
    await this.context.session.query("SELECT 1");
    return { done: true };
  }
}

describe("the slow request log", () => {
  const recording = new Recording();
  let server: HttpServer<Ctx>;

  before(async () => {
    server = await started(Ctx, (s) => {
      s.allowAnonymous = true;
      s.slowRequestThreshold = 100;
      s.registerController(WorkController);
      s.registerLogWriter(recordingWriter(recording));
    });
  });

  after(async () => {
    await server.stop();
    await database.close();
    rmSync(directory, { recursive: true, force: true });
  });

  test("a request over the threshold logs its duration and its statements with theirs, never their parameters", async () => {
    const answer = await ask(server.port, "/work/slow", { headers: { "X-Request-Id": "slow-1" } });
    assert.equal(answer.status, 200);
    await recording.until(() => recording.responses.some((r) => r.requestId === "slow-1"));
    const record = recording.responses.find((r) => r.requestId === "slow-1");
    const json = JSON.parse(JSON.stringify(record)) as {
      durationMs: number;
      statements: { sql: string; durationMs: number; failed: boolean }[];
    };
    assert.ok(json.durationMs >= 100, String(json.durationMs));
    assert.equal(json.statements.length, 3);
    assert.match(json.statements[0].sql, /^SELECT \? AS first$/);
    assert.match(json.statements[1].sql, /^SELECT length\(\?\) AS second$/);
    assert.deepEqual(
      json.statements.map((s) => s.failed),
      [false, false, true],
    );
    // Each statement took part of the request's time (no upper bound of its own: a busy machine may be slow anywhere).
    for (const statement of json.statements)
      assert.ok(statement.durationMs >= 0 && statement.durationMs <= json.durationMs, String(statement.durationMs));
    assert.ok(!JSON.stringify(json).includes(secret), "no parameter value is logged");
  });

  test("a request under the threshold logs no statements", async () => {
    await ask(server.port, "/work/fast", { headers: { "X-Request-Id": "fast-1" } });
    await recording.until(() => recording.responses.some((r) => r.requestId === "fast-1"));
    const json = JSON.parse(JSON.stringify(recording.responses.find((r) => r.requestId === "fast-1"))) as Record<string, unknown>;
    assert.equal(json.statements, undefined);
    assert.equal(json.durationMs, undefined);
  });

  test("concurrent requests each list only their own statements", async () => {
    await Promise.all(["a", "b", "c"].map((id) => ask(server.port, "/work/slow", { headers: { "X-Request-Id": `concurrent-${id}` } })));
    await recording.until(() => ["a", "b", "c"].every((id) => recording.responses.some((r) => r.requestId === `concurrent-${id}`)));
    for (const id of ["a", "b", "c"]) {
      const record = recording.responses.find((r) => r.requestId === `concurrent-${id}`);
      assert.equal(record?.slow?.statements.length, 3, id);
    }
  });

  test("the threshold is off by default and refuses a negative value", () => {
    const fresh = new HttpServer(Ctx);
    assert.equal(fresh.slowRequestThreshold, 0);
    assert.throws(() => {
      fresh.slowRequestThreshold = -1;
    }, HttpServerError);
  });
});
