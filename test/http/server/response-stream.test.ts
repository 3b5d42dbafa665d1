// A streamed answer's sink writes pieces made once for many responses (`HttpStreamSink.writePiece`): straight to the
// socket as chunks framed beforehand when the response holds nothing back, through the response otherwise. Whatever
// way each piece goes, the client reads one well-formed body with every piece in the order written: mixed with
// text written in the same tick, corked together, on a response that waits its turn behind another on its
// connection (pipelined), over HTTP/1.0 (no chunked encoding), and the connection stays open for the next request.
// Real sockets; the order of the two pipelined answers is driven by events, not by time.
import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, test } from "node:test";
import { HttpController } from "../../../src/http/exchange/http-controller.js";
import type { HttpStreamSink } from "../../../src/http/exchange/http-response.js";
import { HttpStreamPiece } from "../../../src/http/exchange/http-stream-piece.js";
import type { HttpServer } from "../../../src/http/server/http-server.js";
import { Get, Uri } from "../../../src/http/routing/route-decorators.js";
import { raw, started } from "../http-test-client.js";

class Ctx {}

const first = new HttpStreamPiece('id: 1\ndata: {"name":"Zoë"}\n\n');
const second = new HttpStreamPiece("id: 2\ndata: {}\n\n");
const third = new HttpStreamPiece(": third\n\n");

/** What every stream's body holds, in order. */
const expectedBody = `retry: 5\n\n${first.bytes}${second.bytes}${third.bytes}${first.bytes}: last\n\n`;

/** Resolves on the event loop's next turn. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The streams begun so far, and what the first waits for: the second having written before its turn came. */
let begun = 0;
let secondWrote: () => void = () => undefined;
const secondHasWritten = new Promise<void>((resolve) => (secondWrote = resolve));

async function produce(sink: HttpStreamSink, order: number): Promise<void> {
  // Text and a piece in the same tick (Node.js 26 holds the text in the response until the next one).
  sink.write("retry: 5\n\n");
  sink.writePiece(first);
  if (order === 2) secondWrote();
  await nextTurn();
  sink.writePiece(second);
  sink.cork();
  sink.writePiece(third);
  sink.writePiece(first);
  sink.uncork();
  if (order === 1)
    await Promise.race([
      secondHasWritten,
      new Promise((_, reject) => setTimeout(() => reject(new Error("the pipelined request never ran")), 20_000).unref()),
    ]);
  await nextTurn();
  sink.write(": last\n\n");
}

@Uri("/pieces")
class PiecesController extends HttpController<Ctx> {
  @Get()
  stream(): void {
    const order = ++begun;
    this.response.contentType = "text/event-stream";
    this.response.stream((sink) => produce(sink, order));
  }
}

/** What `pendingBytes` said after the unread stream's writes, and how many bytes they were. */
let unread: { resolve: (value: { pending: number; written: number }) => void } = { resolve: () => undefined };

@Uri("/unread")
class UnreadController extends HttpController<Ctx> {
  @Get()
  stream(): void {
    this.response.contentType = "text/plain";
    this.response.stream(async (sink) => {
      const megabyte = "x".repeat(1024 * 1024);
      let written = 0;
      for (let i = 0; i < 32; i++) {
        sink.write(megabyte);
        written += megabyte.length;
      }
      unread.resolve({ pending: sink.pendingBytes, written });
    });
  }
}

/** The bodies of the chunked answers in `text`, decoded (each must be well formed: sizes, CRLFs, the last chunk). */
function chunkedBodies(text: string): string[] {
  const bytes = Buffer.from(text, "latin1");
  const bodies: string[] = [];
  let at = 0;
  for (;;) {
    const head = bytes.indexOf("\r\n\r\n", at, "latin1");
    if (head < 0) break;
    assert.match(bytes.subarray(at, head).toString("latin1"), /transfer-encoding: chunked/i);
    at = head + 4;
    const parts: Buffer[] = [];
    for (;;) {
      const line = bytes.indexOf("\r\n", at, "latin1");
      const sizeText = bytes.subarray(at, line).toString("latin1");
      assert.match(sizeText, /^[0-9a-f]+$/, `a chunk size, not ${JSON.stringify(sizeText)}`);
      const size = Number.parseInt(sizeText, 16);
      at = line + 2;
      if (size === 0) {
        assert.equal(bytes.subarray(at, at + 2).toString("latin1"), "\r\n");
        at += 2;
        break;
      }
      parts.push(bytes.subarray(at, at + size));
      assert.equal(bytes.subarray(at + size, at + size + 2).toString("latin1"), "\r\n", "a chunk ends with CRLF");
      at += size + 2;
    }
    bodies.push(Buffer.concat(parts).toString("utf8"));
  }
  assert.equal(at, bytes.length, "nothing after the last answer");
  return bodies;
}

describe("a streamed answer's pieces", () => {
  let server: HttpServer<Ctx>;
  before(async () => {
    server = await started(Ctx, (s) => {
      s.allowAnonymous = true;
      s.registerController(PiecesController);
      s.registerController(UnreadController);
    });
  });
  after(async () => {
    await server.stop();
  });

  test("two pipelined streams each arrive whole and in order, the second written while it waited its turn, and the connection stays open", async () => {
    const request = "GET /pieces HTTP/1.1\r\nHost: x\r\n\r\n";
    const outcome = await raw(server.port, (write) => write(request + request), 500);
    assert.equal(outcome.closedByServer, false);
    assert.deepEqual(chunkedBodies(outcome.text), [expectedBody, expectedBody]);
  });

  test("over HTTP/1.0 the pieces arrive as the plain body, which the closed connection ends", async () => {
    const outcome = await raw(server.port, (write) => write("GET /pieces HTTP/1.0\r\nHost: x\r\n\r\n"));
    assert.equal(outcome.closedByServer, true);
    const [head, ...rest] = outcome.text.split("\r\n\r\n");
    assert.doesNotMatch(head, /transfer-encoding/i);
    assert.equal(Buffer.from(rest.join("\r\n\r\n"), "latin1").toString("utf8"), expectedBody);
  });

  test("pendingBytes counts what waits for a client that reads nothing once, not twice", async () => {
    const said = new Promise<{ pending: number; written: number }>((resolve) => (unread = { resolve }));
    const socket = connect(server.port, "127.0.0.1");
    socket.pause();
    socket.write("GET /unread HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    try {
      const { pending, written } = await said;
      // What the kernel did not take of the 32 MiB waits in the socket's queue, which the response shares; the
      // head and the chunks' sizes add a few hundred bytes. Counted twice, it would be near 64 MiB.
      assert.ok(pending > 0, `${pending} bytes pending`);
      assert.ok(pending <= written + 4096, `${pending} bytes pending of ${written} written`);
    } finally {
      socket.destroy();
    }
  });
});
