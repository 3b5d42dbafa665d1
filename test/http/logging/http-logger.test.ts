import { test } from "node:test";
import assert from "node:assert/strict";
import { HttpLogger } from "../../../src/http/logging/http-logger.js";
import { HttpLogParameters } from "../../../src/http/logging/http-log-parameters.js";
import { HttpLogWriter } from "../../../src/http/logging/http-log-writer.js";
import type { LoggedRequest } from "../../../src/http/logging/http-log-capture.js";
import { delay, eventually, fakeRequest, Gate, Recording, recordingWriter } from "./recording-writer.js";

const response = { statusCode: 200, content: '{"ok":true}', contentType: "application/json", contentEncoding: "" };

function opened(logger: HttpLogger, options: Parameters<HttpLogger["open"]>[0] = {}): HttpLogger {
  logger.open(options);
  return logger;
}

test("registration creates one writer and discards it at once", async () => {
  const recording = new Recording();
  const logger = new HttpLogger(recordingWriter(recording));
  assert.equal(recording.instances, 1);
  assert.equal(recording.closed, 1);
  await logger.close();
});

test("a writer whose constructor throws stops the registration", () => {
  class Broken extends HttpLogWriter {
    constructor() {
      super();
      throw new Error("no destination");
    }
    override writeAction(): void {}
    override writeRequest(): void {}
    override writeResponse(): void {}
  }
  assert.throws(() => new HttpLogger(Broken), /no destination/);
});

test("a consumer creates its writer on first use, not before", async () => {
  const recording = new Recording();
  const logger = opened(new HttpLogger(recordingWriter(recording)));
  await delay(20);
  assert.equal(recording.instances, 1, "only the registration probe so far");
  logger.logRequest(fakeRequest());
  await recording.until(() => recording.requests.length === 1);
  assert.equal(recording.instances, 2);
  await logger.close();
});

test("entries go round-robin across the pool, each consumer with its own writer", async () => {
  const recording = new Recording();
  const logger = opened(new HttpLogger(recordingWriter(recording), 3));
  for (let i = 0; i < 9; i++) logger.logRequest(fakeRequest({ uri: `/r/${i}` }));
  await recording.until(() => recording.requests.length === 9);
  const byWriter = new Map<number, string[]>();
  let next = 0;
  recording.calls.forEach((kind, index) => {
    if (kind !== "request") return;
    const owner = recording.owners[index];
    byWriter.set(owner, [...(byWriter.get(owner) ?? []), recording.requests[next++].uri]);
  });
  assert.equal(recording.instances, 4, "the probe and one writer per consumer");
  assert.deepEqual([...byWriter.values()].map((uris) => uris.join(" ")).sort(), ["/r/0 /r/3 /r/6", "/r/1 /r/4 /r/7", "/r/2 /r/5 /r/8"]);
  await logger.close();
});

test("a writer whose constructor fails on a consumer is created again on the next cycle and the queued entries survive", async () => {
  const recording = new Recording();
  const Writer = recordingWriter(recording, { failConstructor: (instance) => instance === 2 || instance === 3 });
  const logger = opened(new HttpLogger(Writer, new HttpLogParameters({ writerRetryInterval: 30 })));
  logger.logRequest(fakeRequest({ uri: "/first" }));
  logger.logRequest(fakeRequest({ uri: "/second" }));
  await recording.until(() => recording.requests.length === 2);
  assert.equal(recording.instances, 4, "the probe, two failed attempts, then the writer");
  assert.deepEqual(
    recording.requests.map((r) => r.uri),
    ["/first", "/second"],
  );
  await logger.close();
});

test("a writer that throws or rejects is dropped quietly and the next entries are still written", async () => {
  const recording = new Recording();
  const logger = opened(new HttpLogger(recordingWriter(recording, { throwOnRequest: true, rejectOnResponse: true })));
  const request = fakeRequest();
  logger.logRequest(request);
  logger.logResponse(request, response);
  logger.logError(request, { ...response, statusCode: 500 }, "t1", new Error("x"));
  await recording.until(() => recording.errors.length === 1);
  assert.deepEqual(recording.calls, ["error"]);
  await logger.close();
});

test("an inline action is written at once and a throwing writeAction is dropped", async () => {
  const recording = new Recording();
  const logger = opened(new HttpLogger(recordingWriter(recording)));
  logger.logAction("h", "server started");
  assert.deepEqual(
    recording.actions.map((a) => a.message),
    ["server started"],
    "written synchronously",
  );
  class Throwing extends HttpLogWriter {
    override writeAction(): void {
      throw new Error("inline failure");
    }
    override writeRequest(): void {}
    override writeResponse(): void {}
  }
  const throwing = opened(new HttpLogger(Throwing));
  assert.doesNotThrow(() => throwing.logAction("h", "x"));
  class Rejecting extends HttpLogWriter {
    override writeAction(): Promise<void> {
      return Promise.reject(new Error("inline rejection"));
    }
    override writeRequest(): void {}
    override writeResponse(): void {}
  }
  const rejecting = opened(new HttpLogger(Rejecting));
  rejecting.logAction("h", "x");
  await delay(10);
  await Promise.all([logger.close(), throwing.close(), rejecting.close()]);
});

test("a full queue rejects the newest entries and reports the exact count per host at the end of the drain", async () => {
  const recording = new Recording();
  const gate = new Gate();
  const logger = opened(
    new HttpLogger(
      recordingWriter(recording, { gate: gate.wait }),
      new HttpLogParameters({ queueCapacity: 5, discardReportInterval: 60_000 }),
    ),
  );
  for (let i = 0; i < 20; i++) logger.logRequest(fakeRequest({ uri: `/r/${i}`, host: i % 2 === 0 ? "Tenant-A.example" : "" }));
  await eventually(() => gate.waiting === 1);
  assert.equal(gate.waiting, 1, "one entry taken, held by the writer");
  gate.open();
  await recording.until(() => recording.discardedCount === 15 && recording.requests.length === 5);
  assert.deepEqual(
    recording.requests.map((r) => r.uri),
    ["/r/0", "/r/1", "/r/2", "/r/3", "/r/4"],
    "the oldest entries are kept",
  );
  const counts = Object.fromEntries(recording.discarded.map((d) => [d.host, d.count]));
  assert.deepEqual(counts, { "tenant-a.example": 7, "<other>": 8 });
  assert.equal(recording.calls.at(-1), "discarded", "reported at the end of the drain");
  await logger.close();
});

test("discards are reported on a timer while the consumer is still busy", async () => {
  const recording = new Recording();
  const gate = new Gate();
  const logger = opened(
    new HttpLogger(recordingWriter(recording, { gate: gate.wait }), new HttpLogParameters({ queueCapacity: 2, discardReportInterval: 20 })),
  );
  logger.logRequest(fakeRequest({ uri: "/held" }));
  await eventually(() => gate.waiting === 1);
  assert.equal(gate.waiting, 1);
  for (let i = 0; i < 5; i++) logger.logRequest(fakeRequest({ uri: `/r/${i}`, host: "a.test" }));
  await delay(150);
  gate.open();
  await recording.until(() => recording.requests.length === 3);
  assert.deepEqual(recording.calls, ["request", "discarded", "request", "request"]);
  assert.deepEqual([recording.discarded[0].host, recording.discarded[0].count], ["a.test", 3]);
  await logger.close();
});

test("the default writeDiscarded and writeError forward to writeAction with a formatted message", async () => {
  const recording = new Recording();
  const gate = new Gate();
  const logger = opened(
    new HttpLogger(
      recordingWriter(recording, { gate: gate.wait, defaultForwarding: true }),
      new HttpLogParameters({ queueCapacity: 1, discardReportInterval: 60_000 }),
    ),
  );
  const request = fakeRequest({ host: "shop.test" });
  logger.logError(request, { ...response, statusCode: 500 }, "task-1", new TypeError("bad", { cause: new RangeError("first") }));
  // The error entry has left the queue (its action is written) before the queue of one is filled.
  await recording.until(() => recording.actions.length === 1);
  logger.logRequest(request);
  logger.logRequest(request);
  gate.open();
  await recording.until(() => recording.actions.length === 2);
  const [error, discarded] = recording.actions;
  assert.equal(error.taskId, "task-1");
  assert.equal(error.host, "shop.test");
  assert.match(error.message, /TypeError: bad/);
  assert.match(error.message, /RangeError was in flight: first/);
  assert.equal(discarded.host, "shop.test");
  assert.match(discarded.message, /^1 log entry was discarded for host shop\.test/);
  await logger.close();
});

test("onCanLog false skips request and response entries without reading the request, but not the error entry", async () => {
  const recording = new Recording();
  const read: string[] = [];
  const request = new Proxy(fakeRequest({ host: "quiet.test" }), {
    get(target, property, receiver) {
      read.push(String(property));
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
  let asked = 0;
  const logger = opened(new HttpLogger<LoggedRequest>(recordingWriter(recording)), {
    onCanLog: () => {
      asked++;
      return false;
    },
  });
  logger.logRequest(request);
  logger.logResponse(request, response);
  assert.equal(asked, 2);
  assert.deepEqual(read, [], "nothing of the request was read, copied or queued");
  logger.logError(request, { ...response, statusCode: 500 }, "t", new Error("x"));
  await recording.until(() => recording.errors.length === 1);
  await delay(20);
  assert.deepEqual(recording.calls, ["error"]);
  await logger.close();
});

test("an onCanLog that throws skips the entry and does not break the caller", async () => {
  const recording = new Recording();
  const logger = opened(new HttpLogger(recordingWriter(recording)), {
    onCanLog: () => {
      throw new Error("predicate failed");
    },
  });
  assert.doesNotThrow(() => logger.logRequest(fakeRequest()));
  await delay(20);
  assert.deepEqual(recording.calls, []);
  await logger.close();
});

test("onRedactContent is asked for the request body and again for the response body", async () => {
  const recording = new Recording();
  const asked: string[] = [];
  const logger = opened(new HttpLogger(recordingWriter(recording), new HttpLogParameters({ maxContentLength: -1 })), {
    onRedactContent: (_request, content) => {
      asked.push(content);
      return "redacted:" + content.length;
    },
  });
  const request = fakeRequest({ body: '{"password":"x"}' });
  logger.logRequest(request);
  logger.logResponse(request, response);
  assert.deepEqual(asked, ['{"password":"x"}', '{"ok":true}']);
  await recording.until(() => recording.responses.length === 1);
  assert.equal(recording.requests[0].content, "redacted:16");
  assert.equal(recording.responses[0].content, "redacted:11");
  await logger.close();
});

test("close drains every queued entry and closes the writers, and open starts again", async () => {
  const recording = new Recording();
  const logger = opened(new HttpLogger(recordingWriter(recording), 2));
  for (let i = 0; i < 50; i++) logger.logRequest(fakeRequest());
  await logger.close();
  assert.equal(recording.requests.length, 50);
  assert.equal(recording.closed, 3, "the probe and both consumers' writers");
  logger.logRequest(fakeRequest());
  await delay(20);
  assert.equal(recording.requests.length, 50, "nothing is logged while closed");
  logger.open({});
  logger.logRequest(fakeRequest());
  await recording.until(() => recording.requests.length === 51);
  await logger.close();
});

test("a writer whose promise never resolves blocks neither the caller nor close beyond its timeout", async () => {
  let written = 0;
  class Stuck extends HttpLogWriter {
    override writeAction(): void {}
    override writeRequest(): Promise<void> {
      written++;
      return new Promise<void>(() => {});
    }
    override writeResponse(): Promise<void> {
      return new Promise<void>(() => {});
    }
  }
  const logger = opened(new HttpLogger(Stuck, new HttpLogParameters({ queueCapacity: 10, closeTimeout: 200 })));
  for (let i = 0; i < 100; i++) logger.logRequest(fakeRequest());
  // The consumer starts on a later turn; on a busy machine 20 ms is not always enough for it to take the first entry.
  for (let waited = 0; written === 0 && waited < 2000; waited += 10) await delay(10);
  await delay(20);
  assert.equal(written, 1, "the consumer waits on the first entry; the callers never did");
  const started = Date.now();
  await logger.close();
  const took = Date.now() - started;
  assert.ok(took >= 150 && took < 5000, `close waited for its timeout, then gave up (${took} ms)`);
  logger.open({});
  logger.logRequest(fakeRequest());
  for (let waited = 0; written === 1 && waited < 2000; waited += 10) await delay(10);
  assert.equal(written, 2, "after a restart a fresh consumer writes again");
  await logger.close();
});

test("a synchronous writer keeps up with a server's bursts: no entry is discarded while the CPU suffices", async () => {
  let written = 0;
  const discarded: number[] = [];
  class CountingWriter extends HttpLogWriter {
    override writeAction(): void {}
    override writeRequest(): void {
      written++;
    }
    override writeResponse(): void {}
    override writeDiscarded(entry: { count: number }): void {
      discarded.push(entry.count);
    }
  }
  // each turn of the event loop brings 200 entries, as fifty concurrent requests a turn would with both entries
  const logger = opened(new HttpLogger(CountingWriter, new HttpLogParameters({ queueCapacity: 300 })));
  for (let turn = 0; turn < 20; turn++) {
    for (let i = 0; i < 200; i++) logger.logRequest(fakeRequest({ uri: `/r/${turn}/${i}` }));
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  await logger.close();
  assert.deepEqual(discarded, []);
  assert.equal(written, 4000);
});
