import assert from "node:assert/strict";
import { test } from "node:test";
import { HttpAuthentication } from "../../../src/http/auth/http-authentication.js";
import { HttpController } from "../../../src/http/exchange/http-controller.js";
import type { HttpRequest } from "../../../src/http/exchange/http-request.js";
import { HttpUser } from "../../../src/http/exchange/http-user.js";
import type { HttpLogAction, HttpLogError, HttpLogRequest, HttpLogResponse } from "../../../src/http/logging/http-log-records.js";
import { HttpLogWriter } from "../../../src/http/logging/http-log-writer.js";
import { Get, Uri } from "../../../src/http/routing/route-decorators.js";
import { ask, raw, started } from "../http-test-client.js";

class Ctx {}

const requests: HttpLogRequest[] = [];
const responses: HttpLogResponse[] = [];
const errors: HttpLogError[] = [];

class CollectingWriter extends HttpLogWriter {
  writeAction(_action: HttpLogAction): void {}
  writeRequest(request: HttpLogRequest): void {
    requests.push(request);
  }
  writeResponse(response: HttpLogResponse): void {
    responses.push(response);
  }
  override writeError(error: HttpLogError): void {
    errors.push(error);
  }
}

class TenantAuthentication extends HttpAuthentication<Ctx> {
  check(request: HttpRequest): void {
    request.user = new HttpUser("carol", [], "tenant-7");
  }
}

@Uri("/logged")
class LoggedController extends HttpController<Ctx> {
  @Get()
  ok(): unknown {
    return { fine: true };
  }
  @Get("boom")
  boom(): void {
    throw new RangeError("the secret cause");
  }
}

test("the server hands every request, response and 5xx error to the registered log writer", async () => {
  const server = await started(Ctx, (s) => {
    s.registerAuthentication(TenantAuthentication);
    s.registerLogWriter(CollectingWriter);
    s.registerController(LoggedController);
  });
  await ask(server.port, "/logged?x=1");
  const failed = await ask(server.port, "/logged/boom");
  await ask(server.port, "/logged", { method: "OPTIONS" });
  await server.stop();

  assert.deepEqual(requests.map((r) => r.uri).sort(), ["/logged", "/logged/boom"], "a preflight is not logged");
  assert.deepEqual(responses.map((r) => r.statusCode).sort(), [200, 500]);
  assert.equal(errors.length, 1);
  const taskId = (failed.json as { taskId: string }).taskId;
  assert.equal(errors[0].taskId, taskId, "the log and the client see the same task id");
  assert.match(JSON.stringify(errors[0]), /the secret cause/);
  assert.match(JSON.stringify(responses), /tenant-7/, "the tenant reaches the response entries");
});

test("a chunked body cut at the ceiling is still logged as a request, with the bytes read and the peer", async () => {
  requests.length = 0;
  responses.length = 0;
  const server = await started(Ctx, (s) => {
    s.registerAuthentication(TenantAuthentication);
    s.registerLogWriter(CollectingWriter);
    s.maxRequestContentLength = 100;
    s.registerController(LoggedController);
  });
  const outcome = await raw(
    server.port,
    (write) =>
      write(`POST /logged HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n${(300).toString(16)}\r\n${"a".repeat(300)}\r\n`),
    1000,
  );
  await server.stop();
  assert.equal(outcome.text, "");
  assert.equal(requests.length, 1);
  assert.equal(requests[0].contentLength, 100);
  assert.equal(requests[0].remoteIp, "127.0.0.1");
  assert.equal(responses.length, 0, "no response was sent, so none is logged");
});
