import assert from "node:assert/strict";
import { test } from "node:test";
import { TransientDatabaseError } from "../../src/errors.js";
import { HttpController } from "../../src/http/exchange/http-controller.js";
import type { HttpLogAction, HttpLogError, HttpLogRequest, HttpLogResponse } from "../../src/http/logging/http-log-records.js";
import { HttpLogWriter } from "../../src/http/logging/http-log-writer.js";
import { Get, Uri } from "../../src/http/routing/route-decorators.js";
import { ask, raw, sleep, started } from "./http-test-client.js";

const errors: HttpLogError[] = [];
const statuses: number[] = [];
let aborted = 0;
let finishedHandlers = 0;
/** Resolves the slow handler's wait early when the server calls abort(). */
let wakeSlowHandler: () => void = () => {};

class AbortableContext {
  abort(): void {
    aborted++;
    wakeSlowHandler();
  }
}

class CollectingWriter extends HttpLogWriter {
  writeAction(_action: HttpLogAction): void {}
  writeRequest(_request: HttpLogRequest): void {}
  writeResponse(response: HttpLogResponse): void {
    statuses.push(response.statusCode);
  }
  override writeError(error: HttpLogError): void {
    errors.push(error);
  }
}

@Uri("/db")
class DatabaseController extends HttpController<AbortableContext> {
  @Get("away")
  away(): void {
    throw new TransientDatabaseError("PostgreSQL: the connection to db.internal:5432 was lost", "connection", true, true);
  }
  @Get("indoubt")
  async inDoubt(): Promise<void> {
    await sleep(1);
    throw new TransientDatabaseError("MariaDB: lost after COMMIT", "connection", false, true);
  }
  /** Waits up to `ms` milliseconds, or until the context is aborted. */
  @Get("slow/?")
  async slow(ms: number): Promise<unknown> {
    await Promise.race([sleep(ms), new Promise<void>((resolve) => (wakeSlowHandler = resolve))]);
    finishedHandlers++;
    return { slow: true };
  }
}

test("a transient database failure answers 503 with Retry-After and the constant body; the cause goes only to the log", async () => {
  const server = await started(AbortableContext, (s) => {
    s.allowAnonymous = true;
    s.registerLogWriter(CollectingWriter);
    s.registerController(DatabaseController);
  });
  try {
    for (const path of ["/db/away", "/db/indoubt"]) {
      const answer = await ask(server.port, path);
      assert.equal(answer.status, 503, path);
      assert.equal(answer.headers["retry-after"], "1");
      assert.deepEqual(answer.json, { status: 503, message: "Service temporarily unavailable: try again." });
      assert.doesNotMatch(answer.text, /db\.internal|COMMIT/);
    }
  } finally {
    await server.stop();
  }
  assert.deepEqual(statuses, [503, 503]);
  assert.equal(errors.length, 2, "each 503 is written to the log writer like a 500");
  assert.match(JSON.stringify(errors[0]), /db\.internal:5432 was lost/);
  assert.match(errors[0].taskId, /^[0-9a-f]{32}$/);
});

test("a client that goes away while an asynchronous handler runs makes the server call the context's abort(), once", async () => {
  const server = await started(AbortableContext, (s) => {
    s.allowAnonymous = true;
    s.registerController(DatabaseController);
  });
  try {
    const began = Date.now();
    await raw(
      server.port,
      async (write) => {
        write("GET /db/slow/10000 HTTP/1.1\r\nHost: x\r\n\r\n");
        await sleep(200);
      },
      0,
    );
    while (finishedHandlers === 0 && Date.now() - began < 9000) await sleep(20);
    assert.equal(aborted, 1, "abort() was called for the request whose client left");
    assert.ok(Date.now() - began < 9000, "the handler learned it at once, not after its 10 s");
    const answered = await ask(server.port, "/db/slow/10");
    assert.equal(answered.status, 200);
    assert.equal(aborted, 1, "a request answered in full is never aborted");
  } finally {
    await server.stop();
  }
});
