import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { HttpController } from "../../src/http/exchange/http-controller.js";
import type { HttpServer } from "../../src/http/server/http-server.js";
import { Get, Post, Uri } from "../../src/http/routing/route-decorators.js";
import { ask, raw, sleep, started, statusesOf } from "./http-test-client.js";

let built = 0;
let disposed = 0;
let handled = 0;
let releaseSlowHandler: (() => void) | undefined;

class Ctx {
  constructor() {
    built++;
  }
  [Symbol.dispose](): void {
    disposed++;
  }
}

@Uri("/body")
class BodyController extends HttpController<Ctx> {
  @Post()
  echo(): unknown {
    handled++;
    return { length: this.request.contentLength, text: this.request.text.slice(0, 40) };
  }

  @Get("slow")
  async slow(): Promise<unknown> {
    await new Promise<void>((resolve) => (releaseSlowHandler = resolve));
    return "late";
  }
}

function post(length: number | undefined, body: string, extra = ""): string {
  const lengthHeader = length === undefined ? "" : `Content-Length: ${length}\r\n`;
  return `POST /body HTTP/1.1\r\nHost: test\r\n${lengthHeader}${extra}\r\n${body}`;
}

function chunk(data: string): string {
  return `${Buffer.byteLength(data).toString(16)}\r\n${data}\r\n`;
}

async function settle(): Promise<void> {
  const start = Date.now();
  while (disposed !== built && Date.now() - start < 5000) await sleep(10);
}

describe("request bodies and their limits", () => {
  let server: HttpServer<Ctx>;
  let port: number;

  before(async () => {
    server = await started(Ctx, (s) => {
      s.allowAnonymous = true;
      s.maxRequestContentLength = 1000;
      s.registerController(BodyController);
    });
    port = server.port;
  });

  after(async () => {
    await server.stop();
  });

  test("the default ceiling is 1 MiB", async () => {
    const { HttpServer: Server } = await import("../../src/http/server/http-server.js");
    assert.equal(new Server(Ctx).maxRequestContentLength, 1048576);
  });

  test("a body within the ceiling is read whole", async () => {
    const answer = await ask(port, "/body", { method: "POST", body: "x".repeat(1000) });
    assert.deepEqual(answer.json, { length: 1000, text: "x".repeat(40) });
  });

  test("a declared length above the ceiling answers 413 before any body byte is sent", async () => {
    const handledBefore = handled;
    const outcome = await raw(port, (write) => write(post(5000, "")), 2000);
    assert.deepEqual(statusesOf(outcome.text), [413]);
    assert.match(outcome.text, /\{"status":413,"message":"The request body is larger than the 1000 bytes this server accepts\."\}/);
    assert.match(outcome.text, /[Cc]onnection: close/);
    assert.equal(outcome.closedByServer, true);
    assert.equal(handled, handledBefore);
  });

  test("a chunked body within the ceiling is read whole", async () => {
    const outcome = await raw(
      port,
      (write) => write(post(undefined, chunk("hello ") + chunk("world") + "0\r\n\r\n", "Transfer-Encoding: chunked\r\n")),
      500,
    );
    assert.deepEqual(statusesOf(outcome.text), [200]);
    assert.match(outcome.text, /\{"length":11,"text":"hello world"\}/);
  });

  test("a chunked body that grows past the ceiling is cut and the connection dropped without an answer", async () => {
    const handledBefore = handled;
    const outcome = await raw(
      port,
      async (write) => {
        write(post(undefined, "", "Transfer-Encoding: chunked\r\n"));
        for (let i = 0; i < 5; i++) {
          write(chunk("y".repeat(400)));
          await sleep(20);
        }
      },
      2000,
    );
    assert.equal(outcome.closedByServer, true);
    assert.equal(outcome.text, "", "no status line was sent");
    assert.equal(handled, handledBefore, "the handler never ran");
  });

  test("an understated Content-Length reads only the declared bytes and the rest is not a request", async () => {
    const handledBefore = handled;
    const outcome = await raw(
      port,
      async (write) => {
        write(post(5, "abcde"));
        await sleep(200);
        write("fghijklmnopqrstuvwxyz");
      },
      1000,
    );
    assert.deepEqual(statusesOf(outcome.text), [200, 400], "the extra bytes are refused by the listener as a malformed request");
    assert.match(outcome.text, /\{"length":5,"text":"abcde"\}/);
    assert.equal(handled, handledBefore + 1);
    assert.equal(outcome.closedByServer, true);
  });

  test("an overstated Content-Length followed by a half-close gets no answer and builds no context", async () => {
    const builtBefore = built;
    const outcome = await raw(
      port,
      async (write, end) => {
        write(post(500, "only a few bytes"));
        await sleep(100);
        end();
      },
      2000,
    );
    // The listener may answer the truncated message with its own 400; the application never sees it.
    assert.ok(
      statusesOf(outcome.text).every((status) => status === 400),
      outcome.text,
    );
    assert.equal(outcome.closedByServer, true);
    assert.equal(built, builtBefore);
    assert.equal((await ask(port, "/body", { method: "POST", body: "ok" })).status, 200, "the server is still healthy");
  });

  test("a slow client does not hold up other clients and is answered when its body is complete", async () => {
    // The slow client sends its last byte only once the quick request has its answer: were the quick request
    // queued behind the slow one, it would never be answered. Ordering, not a time bound, tells the two apart.
    let quickAnswered!: () => void;
    const quickDone = new Promise<void>((resolve) => (quickAnswered = resolve));
    const slow = raw(
      port,
      async (write) => {
        write(post(10, ""));
        for (let i = 0; i < 9; i++) {
          await sleep(60);
          write(String(i));
        }
        await quickDone;
        write("9");
      },
      1000,
    );
    await sleep(100);
    const quick = await ask(port, "/body", { method: "POST", body: "quick" });
    quickAnswered();
    assert.equal(quick.status, 200);
    const outcome = await slow;
    assert.match(outcome.text, /\{"length":10,"text":"0123456789"\}/);
  });

  test("pipelined requests whose bodies come in one packet with their heads are each answered with their own body", async () => {
    // One write: the parser reads both heads and both bodies from the same packet.
    const outcome = await raw(port, (write) => write(post(5, "first") + post(6, "second") + post(0, "")), 500);
    assert.deepEqual(statusesOf(outcome.text), [200, 200, 200]);
    const bodies = [...outcome.text.matchAll(/\{"length":\d+,"text":"[^"]*"\}/g)].map((match) => match[0]);
    assert.deepEqual(bodies, ['{"length":5,"text":"first"}', '{"length":6,"text":"second"}', '{"length":0,"text":""}']);
  });

  test("a body whose first part comes with the head and the rest later is read whole", async () => {
    const outcome = await raw(
      port,
      async (write) => {
        write(post(10, "01234"));
        await sleep(80);
        write("56789");
      },
      500,
    );
    assert.deepEqual(statusesOf(outcome.text), [200]);
    assert.match(outcome.text, /\{"length":10,"text":"0123456789"\}/);
  });

  test("a body with multi-byte text in the head's packet keeps every byte", async () => {
    const body = "é€😀".repeat(50);
    const answer = await ask(port, "/body", { method: "POST", body });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.json, { length: Buffer.byteLength(body), text: body.slice(0, 40) });
  });

  test("a client that half-closes after its request still gets the whole answer", async () => {
    const outcome = await raw(
      port,
      (write, end) => {
        write(post(4, "data"));
        end();
      },
      2000,
    );
    assert.deepEqual(statusesOf(outcome.text), [200]);
    assert.match(outcome.text, /\{"length":4,"text":"data"\}/);
  });

  test("a client that disconnects while its handler runs leaves no context undisposed", async () => {
    await settle();
    const builtBefore = built;
    const outcome = raw(port, (write) => write("GET /body/slow HTTP/1.1\r\nHost: x\r\n\r\n"), 100);
    while (releaseSlowHandler === undefined) await sleep(10);
    await outcome;
    assert.equal(built, builtBefore + 1);
    releaseSlowHandler();
    releaseSlowHandler = undefined;
    await settle();
    assert.equal(disposed, built);
  });

  test("maxRequestContentLength 0 accepts a body of any size", async () => {
    const unlimited = await started(Ctx, (s) => {
      s.allowAnonymous = true;
      s.maxRequestContentLength = 0;
      s.registerController(BodyController);
    });
    try {
      const answer = await ask(unlimited.port, "/body", { method: "POST", body: Buffer.alloc(3 * 1024 * 1024, 0x41) });
      assert.equal((answer.json as { length: number }).length, 3 * 1024 * 1024);
    } finally {
      await unlimited.stop();
    }
  });
});
