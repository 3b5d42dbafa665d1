// Faults of the log writer under load, on a real server through the public API: a writer that throws from
// every method, and one that hangs (its promises do not settle). Every request is still answered without
// waiting for it, the server still stops within its close timeout, and what a full queue rejected is counted
// and reported exactly once the writer comes back. (The demo's own JSON-lines file removed or unwritable: faults-log-file.test.ts.)
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  Get,
  HttpController,
  type HttpLogAction,
  type HttpLogDiscarded,
  type HttpLogError,
  HttpLogParameters,
  type HttpLogRequest,
  type HttpLogResponse,
  HttpLogWriter,
  type HttpLogWriterClass,
  HttpServer,
  Uri,
} from "tenon/http";

class Context {}

@Uri("/things")
class ThingsController extends HttpController<Context> {
  @Get()
  list(): unknown {
    return [{ id: 1 }];
  }

  @Get("fail")
  fail(): unknown {
    throw new Error("handler broke");
  }
}

async function serve(writer: HttpLogWriterClass, parameters: HttpLogParameters): Promise<HttpServer<Context>> {
  const server = new HttpServer(Context);
  server.port = 0;
  server.addBindAddress("127.0.0.1");
  server.allowAnonymous = true;
  server.baseUri = "/api";
  server.registerController(ThingsController);
  server.registerLogWriter(writer, parameters);
  await server.start();
  return server;
}

/** `count` requests at once (a 404 and a 500 among them); answers their statuses and the slowest answer's milliseconds. */
async function burst(port: number, count: number): Promise<{ statuses: Map<string, number>; slowestMs: number }> {
  const paths = Array.from({ length: count }, (_, i) =>
    i % 10 === 0 ? "/api/nowhere" : i % 10 === 1 ? "/api/things/fail" : "/api/things",
  );
  const started = Date.now();
  let slowestMs = 0;
  const answers = await Promise.all(
    paths.map(async (path) => {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(30_000) });
      await response.text();
      slowestMs = Math.max(slowestMs, Date.now() - started);
      return `${path} ${response.status}`;
    }),
  );
  const statuses = new Map<string, number>();
  for (const answer of answers) statuses.set(answer, (statuses.get(answer) ?? 0) + 1);
  return { statuses, slowestMs };
}

function expectedStatuses(count: number): Map<string, number> {
  return new Map([
    ["/api/nowhere 404", count / 10],
    ["/api/things/fail 500", count / 10],
    ["/api/things 200", (count * 8) / 10],
  ]);
}

/** Milliseconds `stop()` took. */
async function timedStop(server: HttpServer<Context>): Promise<number> {
  const started = Date.now();
  await server.stop();
  return Date.now() - started;
}

test("a log writer that throws from every method costs no request, and the server still stops at once", async () => {
  let calls = 0;
  class ThrowingWriter extends HttpLogWriter {
    override writeAction(_action: HttpLogAction): void {
      calls++;
      throw new Error("writeAction failed");
    }
    override writeRequest(_request: HttpLogRequest): void {
      calls++;
      throw new Error("writeRequest failed");
    }
    override writeResponse(_response: HttpLogResponse): Promise<void> {
      calls++;
      return Promise.reject(new Error("writeResponse rejected"));
    }
    override close(): void {
      throw new Error("close failed");
    }
  }
  const server = await serve(ThrowingWriter, new HttpLogParameters({ closeTimeout: 2000 }));
  try {
    for (let round = 0; round < 3; round++) {
      const { statuses } = await burst(server.port, 100);
      assert.deepEqual(statuses, expectedStatuses(100));
    }
    assert.ok(calls >= 600, `the writer was called for every request and response (${calls} calls)`);
  } finally {
    const took = await timedStop(server);
    console.log(`a throwing log writer: stop took ${took} ms`);
    assert.ok(took < 5000, `stop returned after ${took} ms`);
  }
});

test("a log writer that hangs holds no request, its full queue's discards are counted and reported once it is back, and stop is bounded", async () => {
  let release: () => void = () => {};
  let hanging = new Promise<void>((resolve) => (release = resolve));
  let written = 0;
  const discarded: HttpLogDiscarded[] = [];
  class HangingWriter extends HttpLogWriter {
    override writeAction(_action: HttpLogAction): void {}
    override async writeRequest(_request: HttpLogRequest): Promise<void> {
      await hanging;
      written++;
    }
    override async writeResponse(_response: HttpLogResponse): Promise<void> {
      await hanging;
      written++;
    }
    override async writeError(_error: HttpLogError): Promise<void> {
      await hanging;
      written++;
    }
    override writeDiscarded(entry: HttpLogDiscarded): void {
      discarded.push(entry);
    }
  }
  const capacity = 20;
  const server = await serve(
    HangingWriter,
    new HttpLogParameters({ queueCapacity: capacity, closeTimeout: 1000, discardReportInterval: 60_000 }),
  );
  let stopped = false;
  try {
    // 200 requests while the writer hangs: 400 entries (request and response, errors apart) for a queue of 20.
    // Every answer arrives although the writer has not finished a single write: no request waits for it.
    const { statuses, slowestMs } = await burst(server.port, 200);
    assert.deepEqual(statuses, expectedStatuses(200));
    assert.equal(written, 0);
    assert.equal(discarded.length, 0, "nothing is reported while the writer hangs");

    // The writer comes back: what was queued is written, and every rejected entry is reported, once.
    release();
    const deadline = Date.now() + 5000;
    while (written < capacity + 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const reported = discarded.reduce((sum, entry) => sum + entry.count, 0);
    // The entry held by the writer and the full queue were accepted; each of the other entries is counted
    // (a request and a response per request, and an error entry for each of the 20 answers 500).
    assert.equal(written, capacity + 1, "the entry at the writer and the queued ones are written");
    assert.equal(reported + written, 200 * 2 + 20, `${reported} discarded + ${written} written = every entry`);

    // It hangs for good now: requests are still answered, and stop waits only for the close timeout.
    hanging = new Promise<void>(() => {});
    const again = await burst(server.port, 100);
    assert.deepEqual(again.statuses, expectedStatuses(100));
    const took = await timedStop(server);
    stopped = true;
    console.log(
      `a hanging log writer: 200 answers within ${slowestMs} ms, ${reported} entries discarded and reported, ${written} written; stop took ${took} ms`,
    );
    assert.ok(took < 1000 + 4000, `stop returned after ${took} ms with a writer that never settles`);
  } finally {
    release();
    if (!stopped) await server.stop();
  }
});
