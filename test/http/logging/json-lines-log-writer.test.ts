import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { JsonLinesLogWriter, type JsonLinesLogKind } from "../../../src/http/logging/json-lines-log-writer.js";
import { requestLine, responseLine } from "../../../src/http/logging/json-lines.js";
import { buildLogRequest, buildLogResponse } from "../../../src/http/logging/http-log-capture.js";
import { HttpLogger } from "../../../src/http/logging/http-logger.js";
import { HttpLogParameters } from "../../../src/http/logging/http-log-parameters.js";
import { HttpLogAction, HttpLogDiscarded } from "../../../src/http/logging/http-log-records.js";
import { fakeRequest } from "./recording-writer.js";

/** A fresh directory, removed when the test ends. */
function temporaryDirectory(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), "tenon-log-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function lines(path: string): Record<string, unknown>[] {
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

test("the JSON-lines writer appends one object per entry, tagged with its kind", async (t) => {
  const path = join(temporaryDirectory(t), "http.log");
  class FileLog extends JsonLinesLogWriter {
    static override path = path;
  }
  const logger = new HttpLogger(FileLog, new HttpLogParameters({ maxContentLength: 1000 }));
  logger.open({});
  const request = fakeRequest({ sentMethod: "POST", body: '{"a":1}', headers: [["Authorization", "Bearer x"]] });
  logger.logRequest(request);
  logger.logResponse(request, { statusCode: 200, content: "{}", contentType: "application/json", contentEncoding: "" });
  logger.logError(request, { statusCode: 500, content: "", contentType: "", contentEncoding: "" }, "abc", new Error("boom"));
  await logger.close();
  const written = lines(path);
  assert.deepEqual(
    written.map((line) => line.log),
    ["request", "response", "error"],
  );
  assert.equal(written[0].content, '{"a":1}');
  assert.deepEqual(written[0].headers, [{ name: "Authorization", value: "<redacted>" }]);
  assert.equal(written[2].taskId, "abc");
  assert.equal(written[2].exceptionMessage, "boom");
});

test("a missing directory at start-up is survived and the file is opened once it exists", async (t) => {
  const dir = temporaryDirectory(t);
  const path = join(dir, "later", "http.log");
  class LateLog extends JsonLinesLogWriter {
    static override path = path;
  }
  const writer = new LateLog();
  assert.doesNotThrow(() => writer.writeAction(new HttpLogAction("h", "lost")));
  await writer.flush();
  mkdirSync(join(dir, "later"));
  await writer.writeAction(new HttpLogAction("h", "kept"));
  await writer.writeDiscarded(new HttpLogDiscarded("h", 2));
  await writer.close();
  assert.deepEqual(
    lines(path).map((line) => [line.log, line.message ?? line.count]),
    [
      ["action", "kept"],
      ["discarded", 2],
    ],
  );
});

test("lines are written in batches and all of them reach the file by close", async (t) => {
  const path = join(temporaryDirectory(t), "http.log");
  class FileLog extends JsonLinesLogWriter {
    static override path = path;
  }
  const writer = new FileLog();
  let waits = 0;
  for (let i = 0; i < 2500; i++) {
    const pending = writer.writeAction(new HttpLogAction("h", `line ${i}`));
    if (pending !== undefined) {
      waits++;
      await pending;
    }
  }
  assert.ok(waits >= 2, "a full batch makes the caller wait");
  await writer.close();
  const messages = lines(path).map((line) => line.message);
  assert.equal(messages.length, 2500);
  assert.equal(messages[0], "line 0");
  assert.equal(messages[2499], "line 2499");
});

test("without a path the JSON-lines writer writes to standard output", () => {
  const module = fileURLToPath(new URL("../../../src/http/logging/json-lines-log-writer.js", import.meta.url));
  const records = fileURLToPath(new URL("../../../src/http/logging/http-log-records.js", import.meta.url));
  const script = `
    const { JsonLinesLogWriter } = await import(${JSON.stringify(module)});
    const { HttpLogAction } = await import(${JSON.stringify(records)});
    const writer = new JsonLinesLogWriter();
    writer.writeAction(new HttpLogAction("h", "to stdout"));
    await writer.close();`;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  assert.equal(child.status, 0, child.stderr);
  const line = JSON.parse(child.stdout.trim()) as Record<string, unknown>;
  assert.deepEqual([line.log, line.message], ["action", "to stdout"]);
});

test("request and response lines are exactly the JSON of toJson(), tagged with their kind, for every shape of record", () => {
  // request ids and slow requests included: the fast lines once left both out of the file
  const generous = new HttpLogParameters({ maxContentLength: -1, maxItemCount: -1 });
  const stingy = new HttpLogParameters({ maxContentLength: 4, maxItemCount: 1 });
  const requests = [
    fakeRequest(),
    fakeRequest({ sentMethod: "POST", body: '{"name":"Zoë \\"quoted\\" \\u2028 line"}', contentType: "application/json" }),
    fakeRequest({
      body: "not json",
      headers: [
        ["Host", "h"],
        ["X-Odd", 'a"b\\c\n\u0001'],
        ["X-Lone-Surrogate", "\ud800x\udfff"],
      ],
      params: [
        ["q", "ü é"],
        ["token", "secret"],
      ],
    }),
    fakeRequest({ sentMethod: "POST", contentType: "application/x-www-form-urlencoded", body: "a=1&password=x" }),
    fakeRequest({ user: { username: "ann", areas: ["admin", "sales"], tenant: "t-1" } }),
    fakeRequest({ user: { username: "bob \u{1F600}", areas: [], tenant: undefined } }),
    fakeRequest({ requestId: "0f6c2a4e-3b1d-4c55-9e0a-7d2b8c1e4f90" }),
    fakeRequest({
      requestId: "lb:trace/42+x=",
      slowRequest: {
        durationMs: 812.5,
        statements: [{ sql: 'SELECT "a" FROM t WHERE id = ?', durationMs: 800.25, failed: false }],
        statementsOmitted: 0,
      },
    }),
    fakeRequest({
      requestId: "r-7",
      slowRequest: {
        durationMs: 1500,
        statements: [
          { sql: "UPDATE t SET a = ? WHERE id = ?", durationMs: 0.5, failed: true },
          { sql: "SELECT 1", durationMs: 1, failed: false },
        ],
        statementsOmitted: 3,
      },
    }),
  ];
  const responses = [
    { statusCode: 200, content: '{"ok":true}', contentType: "application/json; charset=utf-8", contentEncoding: "" },
    { statusCode: 500, content: "", contentType: "", contentEncoding: "" },
    { statusCode: 200, content: "x".repeat(10), contentType: "text/plain", contentEncoding: "gzip" },
  ];
  let compared = 0;
  for (const parameters of [generous, stingy, new HttpLogParameters()]) {
    for (const request of requests) {
      const record = buildLogRequest(request, parameters, undefined);
      assert.equal(requestLine(record), JSON.stringify({ log: "request", ...record.toJson() }) + "\n");
      for (const response of responses) {
        const logged = buildLogResponse(request, response, parameters, undefined);
        assert.equal(responseLine(logged), JSON.stringify({ log: "response", ...logged.toJson() }) + "\n");
        compared++;
      }
    }
  }
  assert.equal(compared, 81);
});

test("a subclass that shapes its lines in writeLine gets the request and response lines too", async (t) => {
  const path = join(temporaryDirectory(t), "http.log");
  class StampedLog extends JsonLinesLogWriter {
    static override path = path;
    protected override writeLine(kind: JsonLinesLogKind, json: object): Promise<void> | void {
      return super.writeLine(kind, { ...json, app: "billing" });
    }
  }
  const logger = new HttpLogger(StampedLog);
  logger.open({});
  const request = fakeRequest();
  logger.logRequest(request);
  logger.logResponse(request, { statusCode: 204, content: "", contentType: "", contentEncoding: "" });
  await logger.close();
  assert.deepEqual(
    lines(path).map((line) => [line.log, line.app]),
    [
      ["request", "billing"],
      ["response", "billing"],
    ],
  );
});

test("with synchronous off, batches go through the thread pool and every line still reaches the file", async (t) => {
  const path = join(temporaryDirectory(t), "http.log");
  class PooledLog extends JsonLinesLogWriter {
    static override path = path;
    static override synchronous = false;
  }
  const writer = new PooledLog();
  for (let i = 0; i < 1500; i++) {
    const pending = writer.writeAction(new HttpLogAction("h", `line ${i} ${"é".repeat(i % 7)}`));
    if (pending !== undefined) await pending;
  }
  await writer.close();
  const messages = lines(path).map((line) => line.message);
  assert.equal(messages.length, 1500);
  assert.equal(messages[1499], `line 1499 ${"é".repeat(1499 % 7)}`);
});

test("lines of every size and script reach the file byte for byte, across batches and buffers, in both write modes", async (t) => {
  for (const synchronous of [true, false]) {
    const path = join(temporaryDirectory(t), "http.log");
    class SizedLog extends JsonLinesLogWriter {
      static override path = path;
      static override synchronous = synchronous;
    }
    const writer = new SizedLog();
    const messages: string[] = [];
    const sizes = [0, 1, 100, 40_000, 70_000, 200_000, 5, 65_536];
    for (let batch = 0; batch < 3; batch++) {
      for (let i = 0; i < sizes.length; i++) {
        // ASCII, two-byte, three-byte and four-byte (surrogate pair) characters, and characters JSON escapes
        const message = `${batch}.${i} ` + 'aé€\u{1F600}"\\\n'.repeat(sizes[i] / 8);
        messages.push(message);
        const pending = writer.writeAction(new HttpLogAction("h", message));
        if (pending !== undefined) await pending;
      }
      await writer.flush();
    }
    await writer.close();
    const expected = messages.map((message) => JSON.stringify({ log: "action", ...new HttpLogAction("h", message, "", 0).toJson() }));
    const written = readFileSync(path, "utf8").split("\n");
    assert.equal(written.pop(), "", "the file ends with a newline");
    assert.equal(written.length, messages.length);
    for (let i = 0; i < written.length; i++) {
      assert.equal(
        written[i].replace(/"time":"[^"]*"/, '"time":"1970-01-01T00:00:00.000Z"'),
        expected[i],
        `line ${i}, synchronous ${synchronous}`,
      );
    }
  }
});
