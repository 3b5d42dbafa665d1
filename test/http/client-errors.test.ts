import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { after, before, describe, test } from "node:test";
import { HttpController } from "../../src/http/exchange/http-controller.js";
import type { HttpServer } from "../../src/http/server/http-server.js";
import { Get, Post, Uri } from "../../src/http/routing/route-decorators.js";
import { raw, started, statusesOf } from "./http-test-client.js";

let handled = 0;
class Ctx {}

@Uri("/things")
class ThingController extends HttpController<Ctx> {
  @Get()
  list(): unknown {
    handled++;
    return { things: [] };
  }
  @Post()
  add(): unknown {
    handled++;
    return { length: this.request.contentLength };
  }
}

/** The header block of a raw answer, and its JSON body. */
function parse(text: string): { head: string; body: unknown } {
  const split = text.indexOf("\r\n\r\n");
  const body = text.slice(split + 4);
  return { head: text.slice(0, split), body: body === "" ? undefined : JSON.parse(body) };
}

describe("answers the server gives before any handler", () => {
  let server: HttpServer<Ctx>;
  let port: number;

  before(async () => {
    server = await started(Ctx, (s) => {
      s.allowAnonymous = true;
      s.maxRequestContentLength = 1000;
      s.registerController(ThingController);
      s.cors.allowOrigin = "https://app.example";
    });
    port = server.port;
  });

  after(async () => {
    await server.stop();
  });

  const cases: readonly (readonly [string, string, number, string])[] = [
    ["a malformed request line", "GET /things HTTP/9.9 nonsense\r\nHost: x\r\n\r\n", 400, "The request is not valid HTTP/1.1."],
    ["a header without a colon", "GET /things HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n", 400, "The request is not valid HTTP/1.1."],
    [
      "a header block above 16 KiB",
      `GET /things HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20000)}\r\n\r\n`,
      431,
      "The request headers are too large.",
    ],
    [
      "a chunk-extension flood",
      `POST /things HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1;${"e".repeat(20000)}\r\na\r\n0\r\n\r\n`,
      413,
      "The chunk extensions of the request body are too large.",
    ],
    [
      "CONNECT",
      "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
      405,
      "Method CONNECT is not allowed: this server is not a proxy.",
    ],
    ["an HTTP/1.1 request without Host", "GET /things HTTP/1.1\r\n\r\n", 400, "An HTTP/1.1 request must carry a Host header."],
    [
      "an Expect other than 100-continue",
      "POST /things HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{}",
      417,
      "The expectation '200-ok' is not supported: only 100-continue is.",
    ],
  ];
  for (const [name, request, status, message] of cases) {
    test(`${name} is answered ${status} with the JSON body, the Server header and a closed connection`, async () => {
      const before = handled;
      const outcome = await raw(port, (write) => write(request), 2000);
      assert.deepEqual(statusesOf(outcome.text), [status]);
      const { head, body } = parse(outcome.text);
      assert.deepEqual(body, { status, message });
      assert.match(head, /\r\nServer: tenon\r\n/i);
      assert.match(head, /\r\nContent-Type: application\/json; charset=utf-8\r\n/i);
      assert.match(head, /\r\nAccess-Control-Allow-Origin: https:\/\/app\.example\r\n/i);
      assert.match(head, /\r\nConnection: close(\r\n|$)/i);
      assert.equal(outcome.closedByServer, true);
      assert.equal(handled, before, "no handler ran");
    });
  }

  test("Expect: 100-continue with a Content-Length above the ceiling gets 413 instead of 100 Continue", async () => {
    const outcome = await raw(
      port,
      (write) => write("POST /things HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5000\r\n\r\n"),
      2000,
    );
    assert.doesNotMatch(outcome.text, /100 Continue/);
    assert.deepEqual(statusesOf(outcome.text), [413]);
    assert.deepEqual(parse(outcome.text).body, {
      status: 413,
      message: "The request body is larger than the 1000 bytes this server accepts.",
    });
    assert.equal(outcome.closedByServer, true);
  });

  test("Expect: 100-continue within the ceiling gets 100 Continue, then the answer to the body", async () => {
    const before = handled;
    const outcome = await raw(
      port,
      async (write) => {
        write("POST /things HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 10\r\n\r\n");
        await new Promise((resolve) => setTimeout(resolve, 200));
        write("0123456789");
      },
      500,
    );
    assert.match(outcome.text, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK/);
    assert.match(outcome.text, /\{"length":10\}$/);
    assert.equal(handled, before + 1);
  });

  test("a client like curl that waits for 100 Continue never uploads a body that is too large", async () => {
    const result = await new Promise<{ status: number; bodySent: boolean; text: string }>((resolve, reject) => {
      const req = httpRequest({
        host: "127.0.0.1",
        port,
        path: "/things",
        method: "POST",
        headers: { Expect: "100-continue", "Content-Length": "4000", Host: "x" },
        agent: false,
      });
      let bodySent = false;
      req.on("continue", () => {
        bodySent = true;
        req.end("x".repeat(4000));
      });
      req.on("response", (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, bodySent, text }));
      });
      req.on("error", reject);
      req.flushHeaders();
    });
    assert.equal(result.status, 413);
    assert.equal(result.bodySent, false);
    assert.deepEqual(JSON.parse(result.text), {
      status: 413,
      message: "The request body is larger than the 1000 bytes this server accepts.",
    });
  });

  const headCases: readonly (readonly [string, string, number])[] = [
    ["a HEAD whose target has a raw non-ASCII byte", "HEAD /things/\xC3\xA9 HTTP/1.1\r\nHost: x\r\n\r\n", 400],
    ["a HEAD with a header without a colon", "HEAD /things HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n", 400],
    ["a HEAD whose header block is above 16 KiB", `HEAD /things HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20000)}\r\n\r\n`, 431],
  ];
  for (const [name, request, status] of headCases) {
    test(`${name} is answered ${status} with the headers of the JSON answer and no body`, async () => {
      const outcome = await raw(port, (write) => write(Buffer.from(request, "latin1")), 2000);
      assert.deepEqual(statusesOf(outcome.text), [status]);
      const split = outcome.text.indexOf("\r\n\r\n");
      assert.equal(outcome.text.slice(split + 4), "", "nothing follows the header block");
      const head = outcome.text.slice(0, split);
      assert.match(head, /\r\nContent-Type: application\/json; charset=utf-8\r\n/i);
      assert.match(head, /\r\nConnection: close(\r\n|$)/i);
      assert.equal(outcome.closedByServer, true);
    });
  }

  test("the server keeps serving after every refusal", async () => {
    const outcome = await raw(port, (write) => write("GET /things HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), 2000);
    assert.deepEqual(statusesOf(outcome.text), [200]);
  });
});
