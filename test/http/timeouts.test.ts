import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, test } from "node:test";
import { HttpController } from "../../src/http/exchange/http-controller.js";
import { HttpServer } from "../../src/http/server/http-server.js";
import { HttpServerError } from "../../src/http/exchange/http-errors.js";
import { Get, Post, Uri } from "../../src/http/routing/route-decorators.js";
import { raw, sleep, started, statusesOf } from "./http-test-client.js";

let handled = 0;
class Ctx {}

@Uri("/upload")
class UploadController extends HttpController<Ctx> {
  @Post()
  upload(): unknown {
    handled++;
    return { length: this.request.contentLength };
  }
  @Get()
  ping(): unknown {
    return "pong";
  }
}

/** Opens a connection and answers how long the server took to close it, and what it sent. */
function timeToClose(port: number, script: (write: (data: string) => void) => Promise<void> | void): Promise<{ ms: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    const started = Date.now();
    let text = "";
    socket.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")));
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "ECONNRESET" && error.code !== "EPIPE") reject(error);
    });
    socket.on("close", () => resolve({ ms: Date.now() - started, text }));
    socket.on("connect", () => {
      void Promise.resolve(script((data) => socket.write(data))).catch(() => undefined);
    });
    setTimeout(() => socket.destroy(new Error("the server never closed the connection")), 20000).unref();
  });
}

const upload = (length: number): string => `POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: ${length}\r\n\r\n`;

describe("timeouts that protect the server", { concurrency: true }, () => {
  let server: HttpServer<Ctx>;
  let port: number;

  before(async () => {
    server = await started(Ctx, (s) => {
      s.allowAnonymous = true;
      s.headersTimeout = 1000;
      s.keepAliveTimeout = 600;
      s.bodyTimeout = 1000;
      s.minBodyDataRate = 100;
      s.registerController(UploadController);
    });
    port = server.port;
  });

  after(async () => {
    await server.stop();
  });

  test("the defaults are 10 s for headers, 5 s of keep-alive, and a body rate of 512 bytes a second after 10 s", () => {
    const fresh = new HttpServer(Ctx);
    assert.equal(fresh.headersTimeout, 10000);
    assert.equal(fresh.keepAliveTimeout, 5000);
    assert.equal(fresh.bodyTimeout, 10000);
    assert.equal(fresh.minBodyDataRate, 512);
  });

  test("a negative or fractional timeout, or a change while running, is refused", () => {
    const fresh = new HttpServer(Ctx);
    assert.throws(() => (fresh.headersTimeout = -1), HttpServerError);
    assert.throws(() => (fresh.bodyTimeout = 1.5), HttpServerError);
    assert.throws(() => (server.keepAliveTimeout = 1000), HttpServerError);
    assert.throws(() => (server.minBodyDataRate = 1000), HttpServerError);
  });

  test("half a request line is answered 408 after the headers timeout, not after node's 90 seconds", async () => {
    const { ms, text } = await timeToClose(port, (write) => write("GET /upl"));
    assert.deepEqual(statusesOf(text), [408]);
    assert.match(text, /\{"status":408,"message":"The request did not arrive in time\."\}$/);
    assert.match(text, /\r\nServer: tenon\r\n/);
    assert.ok(ms >= 900 && ms < 8000, `closed after ${ms} ms`);
  });

  test("headers trickled a byte at a time are cut at the headers timeout although bytes keep coming", async () => {
    const request = "GET /upload HTTP/1.1\r\nHost: x\r\nX-Slow: " + "a".repeat(200) + "\r\n\r\n";
    const { ms, text } = await timeToClose(port, async (write) => {
      for (const char of request) {
        write(char);
        await sleep(50);
      }
    });
    assert.deepEqual(statusesOf(text), [408]);
    assert.ok(ms >= 900 && ms < 8000, `closed after ${ms} ms`);
  });

  test("a connection that never sends a byte is closed after the headers timeout", async () => {
    const { ms } = await timeToClose(port, () => undefined);
    assert.ok(ms >= 900 && ms < 8000, `closed after ${ms} ms`);
  });

  test("an idle kept-alive connection is closed after the keep-alive timeout, not before", async () => {
    const { ms, text } = await timeToClose(port, (write) => write("GET /upload HTTP/1.1\r\nHost: x\r\n\r\n"));
    assert.deepEqual(statusesOf(text), [200]);
    assert.ok(ms >= 550 && ms < 4500, `closed after ${ms} ms`);
  });

  test("a slow upload that keeps progressing above the minimum rate is never cut, though it takes longer than the body timeout", async () => {
    const before = handled;
    const body = "b".repeat(450);
    const started = Date.now();
    const outcome = await raw(
      port,
      async (write) => {
        write(upload(body.length));
        for (let i = 0; i < body.length; i += 15) {
          write(body.slice(i, i + 15));
          await sleep(100);
        }
      },
      500,
    );
    assert.ok(Date.now() - started > 2500, "the upload took longer than the body timeout");
    assert.deepEqual(statusesOf(outcome.text), [200]);
    assert.match(outcome.text, /\{"length":450\}/);
    assert.equal(handled, before + 1);
  });

  test("a body slower than the minimum rate is answered 408 and its connection closed, without running the handler", async () => {
    const before = handled;
    const { ms, text } = await timeToClose(port, async (write) => {
      write(upload(400));
      for (let i = 0; i < 40; i++) {
        write("s");
        await sleep(100);
      }
    });
    assert.deepEqual(statusesOf(text), [408]);
    assert.match(text, /\{"status":408,"message":"The request did not arrive in time\."\}$/);
    assert.ok(ms >= 1000 && ms < 8000, `closed after ${ms} ms`);
    assert.equal(handled, before);
  });

  test("a Content-Length that promises more than ever comes is answered 408", async () => {
    const { ms, text } = await timeToClose(port, (write) => write(upload(100) + "only ten b"));
    assert.deepEqual(statusesOf(text), [408]);
    assert.ok(ms >= 900 && ms < 8000, `closed after ${ms} ms`);
  });
});
