import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { HttpController } from "../../../src/http/exchange/http-controller.js";
import { randomRequestId } from "../../../src/http/exchange/request-id.js";
import type { HttpServer } from "../../../src/http/server/http-server.js";
import { JsonLinesLogWriter } from "../../../src/http/logging/json-lines-log-writer.js";
import { Get, Uri } from "../../../src/http/routing/route-decorators.js";
import { ask, raw, started } from "../http-test-client.js";
import { Recording, recordingWriter } from "../logging/recording-writer.js";

class Ctx {}

@Uri("/things")
class ThingsController extends HttpController<Ctx> {
  @Get()
  list(): unknown {
    this.log("listed the things");
    return [];
  }

  @Get("fail")
  fail(): unknown {
    throw new TypeError("handler broke");
  }
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("request ids", () => {
  const recording = new Recording();
  let server: HttpServer<Ctx>;

  before(async () => {
    server = await started(Ctx, (s) => {
      s.allowAnonymous = true;
      s.registerController(ThingsController);
      s.registerLogWriter(recordingWriter(recording));
    });
  });

  after(async () => {
    await server.stop();
  });

  test("a request without X-Request-Id gets a fresh UUID, answered in X-Request-Id", async () => {
    const first = await ask(server.port, "/things");
    const second = await ask(server.port, "/things");
    assert.match(String(first.headers["x-request-id"]), uuid);
    assert.match(String(second.headers["x-request-id"]), uuid);
    assert.notEqual(first.headers["x-request-id"], second.headers["x-request-id"]);
  });

  test("a well-formed X-Request-Id is answered and logged as sent", async () => {
    const id = "lb-7f3a.9c:01/x+y=";
    const answer = await ask(server.port, "/things", { headers: { "X-Request-Id": id } });
    assert.equal(answer.headers["x-request-id"], id);
    await recording.until(() => recording.responses.some((r) => r.requestId === id) && recording.actions.some((a) => a.requestId === id));
    assert.equal(recording.requests.find((r) => r.requestId === id)?.uri, "/things");
    assert.equal(recording.actions.find((a) => a.requestId === id)?.message, "listed the things");
    assert.equal(JSON.parse(JSON.stringify(recording.responses.find((r) => r.requestId === id)))?.requestId, id);
  });

  for (const [what, sent] of [
    ["too long", "a".repeat(129)],
    ["with a space", "abc def"],
    ["with a quote", 'abc"def'],
    ["empty", ""],
    ["with non-ASCII letters", "café"],
  ] as const) {
    test(`an X-Request-Id ${what} is replaced by a fresh one`, async () => {
      const answer = await ask(server.port, "/things", { headers: { "X-Request-Id": sent } });
      assert.match(String(answer.headers["x-request-id"]), uuid);
    });
  }

  test("an id of 128 characters is kept", async () => {
    const id = "b".repeat(128);
    const answer = await ask(server.port, "/things", { headers: { "X-Request-Id": id } });
    assert.equal(answer.headers["x-request-id"], id);
  });

  test("errors carry the id too: a 404 and a 500, whose task id is logged beside the request id", async () => {
    const missing = await ask(server.port, "/nowhere", { headers: { "X-Request-Id": "req-404" } });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers["x-request-id"], "req-404");
    const failed = await ask(server.port, "/things/fail", { headers: { "X-Request-Id": "req-500" } });
    assert.equal(failed.status, 500);
    assert.equal(failed.headers["x-request-id"], "req-500");
    const taskId = (failed.json as { taskId: string }).taskId;
    await recording.until(() => recording.errors.some((e) => e.taskId === taskId));
    const error = recording.errors.find((e) => e.taskId === taskId);
    assert.equal(error?.requestId, "req-500");
    assert.equal(JSON.parse(JSON.stringify(error)).requestId, "req-500");
  });

  test("a request the server refuses before routing (HTTP/1.1 without Host) still gets an id", async () => {
    const outcome = await raw(server.port, (write) => write("GET /things HTTP/1.1\r\n\r\n"));
    assert.match(outcome.text, /^HTTP\/1\.1 400/);
    assert.match(outcome.text, /x-request-id: [0-9a-f-]{36}\r\n/i);
  });
});

describe("request ids in the JSON-lines log file", () => {
  const dir = mkdtempSync(join(tmpdir(), "tenon-request-id-"));
  const path = join(dir, "http.log");
  class FileLog extends JsonLinesLogWriter {
    static override path = path;
  }
  let server: HttpServer<Ctx>;

  before(async () => {
    server = await started(Ctx, (s) => {
      s.allowAnonymous = true;
      s.registerController(ThingsController);
      s.registerLogWriter(FileLog);
    });
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  test("the request, action, response and error lines of a request all carry its id", async () => {
    await ask(server.port, "/things", { headers: { "X-Request-Id": "file-req-1" } });
    const failed = await ask(server.port, "/things/fail", { headers: { "X-Request-Id": "file-req-2" } });
    await server.stop(); // flushes the log
    const lines = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { log: string; requestId?: string; taskId?: string });
    const kindsOf = (id: string): string[] => lines.filter((line) => line.requestId === id).map((line) => line.log);
    assert.deepEqual(kindsOf("file-req-1").sort(), ["action", "request", "response"]);
    assert.deepEqual(kindsOf("file-req-2").sort(), ["error", "request", "response"]);
    const error = lines.find((line) => line.log === "error");
    assert.equal(error?.taskId, (failed.json as { taskId: string }).taskId);
  });
});

describe("fresh request ids", () => {
  test("are version 4 UUIDs in lower case, and 10,000 of them in a row (many draws of random bytes) all differ", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const id = randomRequestId();
      assert.match(id, uuid);
      seen.add(id);
    }
    assert.equal(seen.size, 10_000);
  });

  test("every hex digit shows up in every random position: the bytes are spread, not a fixed pattern", () => {
    const digits = Array.from({ length: 36 }, () => new Set<string>());
    for (let i = 0; i < 2_000; i++) {
      for (const [at, c] of [...randomRequestId()].entries()) digits[at].add(c);
    }
    for (const [at, seen] of digits.entries()) {
      if ([8, 13, 18, 23].includes(at)) assert.deepEqual([...seen], ["-"]);
      else if (at === 14) assert.deepEqual([...seen], ["4"], "the version digit");
      else if (at === 19) assert.deepEqual([...seen].sort(), ["8", "9", "a", "b"], "the variant digit");
      else assert.equal(seen.size, 16, `position ${at}`);
    }
  });
});
