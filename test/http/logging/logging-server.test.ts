// End-to-end: a real listening HttpServer, real sockets, and a recording log writer.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { HttpServer } from "../../../src/http/server/http-server.js";
import { HttpController } from "../../../src/http/exchange/http-controller.js";
import { HttpAuthentication } from "../../../src/http/auth/http-authentication.js";
import { HttpServerError, HttpUnauthorizedError } from "../../../src/http/exchange/http-errors.js";
import type { HttpRequest } from "../../../src/http/exchange/http-request.js";
import { HttpUser } from "../../../src/http/exchange/http-user.js";
import { Get, Post, Uri } from "../../../src/http/routing/route-decorators.js";
import { HttpLogParameters } from "../../../src/http/logging/http-log-parameters.js";
import { HttpLogRedactedNames } from "../../../src/http/logging/http-log-redacted-names.js";
import type { HttpLogWriterClass } from "../../../src/http/logging/http-log-writer.js";
import { ask, started } from "../http-test-client.js";
import { delay, Gate, Recording, recordingWriter } from "./recording-writer.js";

class Context {}

class TokenAuthentication extends HttpAuthentication<Context> {
  check(request: HttpRequest): void {
    if (request.header("authorization") !== "Bearer good") throw new HttpUnauthorizedError();
    request.user = new HttpUser("ann", ["admin"], "tenant-1");
  }
}

@Uri("/things")
class ThingsController extends HttpController<Context> {
  @Get()
  list(): unknown {
    return [{ id: 1 }];
  }

  @Post()
  create(): unknown {
    return { created: true, token: "server-secret" };
  }

  @Get("fail")
  fail(): unknown {
    throw new TypeError("handler broke", { cause: new RangeError("first failure") });
  }

  @Get("audit")
  audit(): unknown {
    this.log(`audit: ${this.request.user?.username ?? "nobody"} listed the things`);
    return [];
  }

  @Get("unavailable")
  unavailable(): unknown {
    this.response.statusCode = 503;
    return { down: true };
  }
}

const authorized = { authorization: "Bearer good" };

interface Setup {
  readonly parameters?: HttpLogParameters | number;
  readonly onCanLog?: (request: HttpRequest) => boolean;
  readonly onRedactContent?: (request: HttpRequest, content: string) => string;
}

async function serverWith(
  t: { after: (fn: () => Promise<void>) => void },
  writer: HttpLogWriterClass,
  setup: Setup = {},
): Promise<{ server: HttpServer<Context>; port: number }> {
  const server = await started(Context, (s) => {
    s.baseUri = "/api";
    s.registerController(ThingsController);
    s.registerAuthentication(TokenAuthentication);
    s.registerLogWriter(writer, setup.parameters);
    if (setup.onCanLog !== undefined) s.onCanLog = setup.onCanLog;
    if (setup.onRedactContent !== undefined) s.onRedactContent = setup.onRedactContent;
  });
  t.after(() => server.stop());
  return { server, port: server.port };
}

test("writeRequest is called for a 401 and a 404 request too, and every response is logged", async (t) => {
  const recording = new Recording();
  const { port } = await serverWith(t, recordingWriter(recording));
  assert.equal((await ask(port, "/api/things")).status, 401);
  assert.equal((await ask(port, "/api/missing", { headers: authorized })).status, 404);
  assert.equal((await ask(port, "/api/things", { headers: authorized })).status, 200);
  await recording.until(() => recording.responses.length === 3);
  assert.deepEqual(
    recording.requests.map((r) => [r.methodType, r.uri]),
    [
      ["GET", "/api/things"],
      ["GET", "/api/missing"],
      ["GET", "/api/things"],
    ],
  );
  assert.deepEqual(
    recording.responses.map((r) => r.statusCode),
    [401, 404, 200],
  );
  assert.equal(recording.responses[0].user, undefined);
  assert.deepEqual(recording.responses[2].user, { username: "ann", areas: ["admin"], tenant: "tenant-1" });
  assert.equal(recording.requests[0].remoteIp, "127.0.0.1");
  assert.equal(recording.requests[0].host, `127.0.0.1:${port}`);
  assert.equal(recording.errors.length, 0);
});

test("a handler writes its own record inline through the registered writer, with the request's host", async (t) => {
  const recording = new Recording();
  const { port } = await serverWith(t, recordingWriter(recording));
  assert.equal((await ask(port, "/api/things/audit", { headers: authorized })).status, 200);
  await recording.until(() => recording.actions.length === 1);
  assert.equal(recording.actions[0].message, "audit: ann listed the things");
  assert.equal(recording.actions[0].host, `127.0.0.1:${port}`);
  assert.equal(recording.actions[0].taskId, "");
});

test("headers and query parameters on the redaction list reach the writer as <redacted> with the name kept", async (t) => {
  HttpLogRedactedNames.add("X-Tenant-Key");
  const recording = new Recording();
  let server: HttpServer<Context>;
  try {
    server = await started(Context, (s) => {
      s.baseUri = "/api";
      s.registerController(ThingsController);
      s.registerAuthentication(TokenAuthentication);
      s.registerLogWriter(recordingWriter(recording));
    });
  } catch (error) {
    HttpLogRedactedNames.remove("X-Tenant-Key");
    throw error;
  }
  t.after(async () => {
    await server.stop();
    HttpLogRedactedNames.remove("X-Tenant-Key");
  });
  const port = server.port;
  const answer = await ask(port, "/api/things?access_token=qs-secret&Q=1&PASSWORD=pw-secret", {
    headers: {
      ...authorized,
      Cookie: "sid=cookie-secret",
      "X-API-Key": "key-secret",
      "x-tenant-key": "tenant-secret",
      Accept: "application/json",
    },
  });
  assert.equal(answer.status, 200);
  await recording.until(() => recording.responses.length === 1);
  const entry = recording.requests[0];
  const headers = Object.fromEntries(entry.headers ?? []);
  assert.equal(headers.authorization, "<redacted>");
  assert.equal(headers.Cookie, "<redacted>");
  assert.equal(headers["X-API-Key"], "<redacted>");
  assert.equal(headers["x-tenant-key"], "<redacted>");
  assert.equal(headers.Accept, "application/json");
  assert.deepEqual(entry.params, [
    ["access_token", "<redacted>"],
    ["Q", "1"],
    ["PASSWORD", "<redacted>"],
  ]);
  assert.equal(entry.paramsCount, 3);
  const text = JSON.stringify(entry);
  for (const secret of ["Bearer good", "qs-secret", "pw-secret", "cookie-secret", "key-secret", "tenant-secret"])
    assert.ok(!text.includes(secret), secret);
});

test("adding a redacted name while a real server runs throws HttpServerError, and works again after stop", async (t) => {
  const recording = new Recording();
  const { server } = await serverWith(t, recordingWriter(recording));
  assert.throws(() => HttpLogRedactedNames.add("X-Too-Late"), HttpServerError);
  await server.stop();
  HttpLogRedactedNames.add("X-Too-Late");
  assert.equal(HttpLogRedactedNames.isRedacted("x-too-late"), true);
  HttpLogRedactedNames.remove("X-Too-Late");
});

test("onCanLog false logs neither request nor response, yet a 5xx still reaches writeError", async (t) => {
  const recording = new Recording();
  const asked: string[] = [];
  const { port } = await serverWith(t, recordingWriter(recording), {
    onCanLog: (request) => {
      asked.push(request.uri);
      return false;
    },
  });
  assert.equal((await ask(port, "/api/things", { headers: authorized })).status, 200);
  assert.equal((await ask(port, "/api/things/fail", { headers: authorized })).status, 500);
  await recording.until(() => recording.errors.length === 1);
  await delay(50);
  assert.deepEqual(recording.calls, ["error"]);
  assert.deepEqual(asked, ["/api/things", "/api/things", "/api/things/fail", "/api/things/fail"]);
});

test("onRedactContent is asked for the request body and again for the response body", async (t) => {
  const recording = new Recording();
  const asked: [string, string][] = [];
  const { port } = await serverWith(t, recordingWriter(recording), {
    parameters: new HttpLogParameters({ maxContentLength: -1 }),
    onRedactContent: (request, content) => {
      asked.push([request.uri, content]);
      return content.replace(/"(password|token)":"[^"]*"/g, '"$1":"***"');
    },
  });
  const body = '{"username":"ann","password":"hunter2"}';
  const answer = await ask(port, "/api/things", { method: "POST", headers: { ...authorized, "content-type": "application/json" }, body });
  assert.equal(answer.status, 200);
  await recording.until(() => recording.responses.length === 1);
  assert.deepEqual(asked, [
    ["/api/things", body],
    ["/api/things", answer.text],
  ]);
  assert.equal(recording.requests[0].content, '{"username":"ann","password":"***"}');
  assert.equal(recording.requests[0].contentLength, Buffer.byteLength(body));
  assert.equal(recording.responses[0].content, '{"created":true,"token":"***"}');
  assert.equal(recording.responses[0].contentLength, Buffer.byteLength(answer.text));
});

test("without onRedactContent a captured body is logged with its credentials, and a non-JSON body is omitted", async (t) => {
  const recording = new Recording();
  const { port } = await serverWith(t, recordingWriter(recording), { parameters: new HttpLogParameters({ maxContentLength: 1000 }) });
  const body = '{"username":"ann","password":"hunter2"}';
  await ask(port, "/api/things", { method: "POST", headers: authorized, body });
  await ask(port, "/api/things", { method: "POST", headers: authorized, body: "not json at all" });
  await recording.until(() => recording.responses.length === 2);
  assert.equal(recording.requests[0].content, body);
  assert.deepEqual([recording.requests[1].contentOmitted, recording.requests[1].contentLength], [true, 15]);
});

test("a form-encoded body is logged as redacted parameters, and omitted together with its content past the cap", async (t) => {
  const recording = new Recording();
  const { port } = await serverWith(t, recordingWriter(recording), { parameters: new HttpLogParameters({ maxContentLength: 40 }) });
  const form = { ...authorized, "content-type": "application/x-www-form-urlencoded" };
  await ask(port, "/api/things?lang=it", { method: "POST", headers: form, body: "username=ann&password=hunter2" });
  await ask(port, "/api/things?lang=it", {
    method: "POST",
    headers: form,
    body: "username=ann&password=hunter2&padding=" + "x".repeat(40),
  });
  await recording.until(() => recording.responses.length === 2);
  const [small, large] = recording.requests;
  assert.deepEqual(small.params, [
    ["lang", "it"],
    ["username", "ann"],
    ["password", "<redacted>"],
  ]);
  assert.ok(!JSON.stringify(small).includes("hunter2"));
  assert.deepEqual([large.contentOmitted, large.paramsOmitted, large.params], [true, true, undefined]);
});

test("a 5xx produces writeError with the task id of the response body and the exception as text", async (t) => {
  const recording = new Recording();
  const { port } = await serverWith(t, recordingWriter(recording));
  const failed = await ask(port, "/api/things/fail?token=t", { headers: { ...authorized, host: "Shop.Example" } });
  assert.equal(failed.status, 500);
  const taskId = (failed.json as { taskId: string }).taskId;
  assert.match(taskId, /^[0-9a-f]{32}$/);
  assert.ok(!failed.text.includes("handler broke"));
  const unavailable = await ask(port, "/api/things/unavailable", { headers: authorized });
  assert.equal(unavailable.status, 503);
  await recording.until(() => recording.errors.length === 2);
  const [thrown, set] = recording.errors;
  assert.deepEqual(
    [
      thrown.taskId,
      thrown.host,
      thrown.uri,
      thrown.statusCode,
      thrown.tenant,
      thrown.exceptionClassName,
      thrown.exceptionMessage,
      thrown.nestedExceptionClassName,
      thrown.nestedExceptionMessage,
    ],
    [taskId, "Shop.Example", "/api/things/fail", 500, "tenant-1", "TypeError", "handler broke", "RangeError", "first failure"],
  );
  assert.equal(set.taskId, (unavailable.json as { taskId: string }).taskId);
  assert.equal(set.statusCode, 503);
  assert.equal(set.exceptionClassName, "");
});

test("a writer that throws or rejects never breaks a request", async (t) => {
  const recording = new Recording();
  const { port } = await serverWith(t, recordingWriter(recording, { throwOnRequest: true, rejectOnResponse: true }));
  for (let i = 0; i < 5; i++) assert.equal((await ask(port, "/api/things", { headers: authorized })).status, 200);
  assert.equal((await ask(port, "/api/things/fail", { headers: authorized })).status, 500);
  await recording.until(() => recording.errors.length === 1);
  assert.deepEqual(recording.calls, ["error"]);
});

test("a writer whose promise never resolves slows no request and holds stop only until the close timeout", async (t) => {
  const recording = new Recording();
  const never = (): Promise<void> => new Promise<void>(() => {});
  const { server, port } = await serverWith(t, recordingWriter(recording, { gate: never }), {
    parameters: new HttpLogParameters({ queueCapacity: 5, closeTimeout: 300 }),
  });
  const answers = await Promise.all(Array.from({ length: 40 }, () => ask(port, "/api/things", { headers: authorized })));
  assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([200]));
  const started = Date.now();
  await server.stop();
  const took = Date.now() - started;
  assert.ok(took < 10_000, `stop returned after ${took} ms`);
  assert.equal(recording.requests.length, 0);
});

test("a flood that overflows the queue is counted exactly, per host, and reported through writeDiscarded", async (t) => {
  const recording = new Recording();
  const gate = new Gate();
  const { port } = await serverWith(t, recordingWriter(recording, { gate: gate.wait }), {
    parameters: new HttpLogParameters({ queueCapacity: 10, discardReportInterval: 60_000 }),
  });
  for (let i = 1; i <= 30; i++) {
    const host = i % 2 === 1 ? "Shop.Example:8080" : "!!!";
    assert.equal((await ask(port, "/api/things", { headers: { ...authorized, host } })).status, 200);
  }
  assert.equal(gate.waiting, 1, "the consumer holds one entry at the writer");
  gate.open();
  await recording.until(() => recording.discardedCount === 49 && recording.requests.length + recording.responses.length === 11);
  // accepted: the entry at the writer and the ten queued, in arrival order (request 1 .. request 6)
  assert.equal(recording.requests.length, 6);
  assert.equal(recording.responses.length, 5);
  const counts = Object.fromEntries(recording.discarded.map((d) => [d.host, d.count]));
  assert.deepEqual(counts, { "<other>": 25, "shop.example:8080": 24 });
  await delay(50);
  assert.equal(recording.discardedCount, 49, "each discard is reported once");
});

test("a pool of consumers shares the load and every entry of a burst is written", async (t) => {
  const recording = new Recording();
  const { server, port } = await serverWith(t, recordingWriter(recording), { parameters: 3 });
  await Promise.all(Array.from({ length: 30 }, () => ask(port, "/api/things", { headers: authorized })));
  await server.stop();
  assert.equal(recording.requests.length, 30);
  assert.equal(recording.responses.length, 30);
  assert.equal(new Set(recording.owners).size, 3, "three writers, one per consumer");
});
