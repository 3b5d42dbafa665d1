import { type IncomingMessage, type Server, ServerResponse, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { HttpCorsConfig } from "./http-cors-config.js";
import { HttpResponse } from "../exchange/http-response.js";
import { HttpDefaults, HttpStatus, HttpMessages } from "../exchange/http-messages.js";
import { writeClientError } from "./response-writer.js";

/** What the guard needs from the server. @internal */
export interface ConnectionGuardSettings {
  readonly cors: HttpCorsConfig;
  /** The body ceiling of a request (0: none): the streamed one for a route that reads its body as a stream. */
  readonly bodyCeilingOf: (req: IncomingMessage) => number;
  /** The request listener, called for a request with `Expect: 100-continue` once it is decided. */
  readonly onRequest: (req: IncomingMessage, res: ServerResponse) => void;
}

/** The status of each error node:http's parser reports (its own default answers, with our body). */
const statusByCode: Readonly<Record<string, readonly [number, string]>> = {
  HPE_HEADER_OVERFLOW: [HttpStatus.headersTooLarge, HttpMessages.headersTooLarge],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [HttpStatus.payloadTooLarge, HttpMessages.chunkExtensionsTooLarge],
  ERR_HTTP_REQUEST_TIMEOUT: [HttpStatus.requestTimeout, HttpMessages.requestTimeout],
};

/**
 * Installs the server's own answers to what node:http would otherwise answer by itself, with an empty body
 * and no `Server` header, or not at all: a request the parser refuses (400, 408, 413 for a chunk-extension
 * flood, 431), `CONNECT` (handed to the request pipeline, which answers it as a method no route answers), an
 * `Expect` other than `100-continue` (417), and `Expect: 100-continue`
 * with a declared body above the ceiling (413 instead of 100 Continue, so the body is never uploaded).
 * Every answer carries the documented JSON body `{"status", "message"}` (its headers only, to a HEAD request)
 * and closes the connection.
 * @internal
 */
export function guardConnections(server: Server, settings: ConnectionGuardSettings): void {
  const { cors } = settings;
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === "ECONNRESET" || !socket.writable || responseInProgress(socket)) {
      socket.destroy();
      return;
    }
    const [status, message] = statusByCode[error.code ?? ""] ?? [HttpStatus.badRequest, HttpMessages.malformedRequest];
    answerOnSocket(socket, cors, status, message, isHeadRequest(error));
  });
  server.on("connect", (req: IncomingMessage, socket: Duplex) => {
    // node:http hands CONNECT over without a response (a proxy would tunnel): the pipeline answers it like any
    // method no route answers (401 to an anonymous caller first, else 405), on a response bound to the socket
    // here, and the connection closes after it.
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.once("finish", () => {
      res.detachSocket(socket as Socket);
      socket.end();
      setTimeout(() => socket.destroy(), HttpDefaults.errorAnswerLingerMs).unref();
    });
    settings.onRequest(req, res);
  });
  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => {
    writeClientError(res, cors, HttpStatus.expectationFailed, HttpMessages.expectationFailed(String(req.headers.expect ?? "")));
  });
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
    // The pipeline answers a declared length above the ceiling with 413 before reading; only a body it
    // will read is invited.
    const limit = settings.bodyCeilingOf(req);
    if (!(limit > 0 && Number(req.headers["content-length"]) > limit)) res.writeContinue();
    settings.onRequest(req, res);
  });
}

/**
 * True while a response of this connection is being written (node:http keeps it on the socket, and its own
 * default handler asks the same): an error answer then would corrupt the stream, so the socket is dropped.
 */
function responseInProgress(socket: Duplex): boolean {
  const message = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  return message !== undefined && message !== null && message.headersSent === true;
}

/**
 * Whether the request the parser refused is a HEAD, read from its request line in the packet the parser failed
 * on (after the header block of any request before it in that packet). A request line that is not in that
 * packet (split over packets, or a header block that overflowed over several) leaves the method unknown, and
 * the answer then carries its body.
 */
function isHeadRequest(error: NodeJS.ErrnoException & { rawPacket?: unknown; bytesParsed?: unknown }): boolean {
  const packet = error.rawPacket;
  if (!Buffer.isBuffer(packet)) return false;
  const parsed = typeof error.bytesParsed === "number" ? Math.min(error.bytesParsed, packet.length) : packet.length;
  const previous = parsed < 4 ? -1 : packet.lastIndexOf("\r\n\r\n", parsed - 4);
  let start = previous < 0 ? 0 : previous + 4;
  // RFC 9112 2.2: empty lines before a request line are ignored.
  while (packet[start] === 0x0d || packet[start] === 0x0a) start++;
  return packet.toString("latin1", start, start + 5) === "HEAD ";
}

/**
 * Writes a complete JSON error answer straight to a socket that has no `ServerResponse`, then closes it; to a
 * HEAD request the same status and headers without the body.
 */
function answerOnSocket(socket: Duplex, cors: HttpCorsConfig, status: number, message: string, headOnly = false): void {
  const body = JSON.stringify({ status, message });
  let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\n`;
  if (HttpResponse.serverHeader !== "") head += `Server: ${HttpResponse.serverHeader}\r\n`;
  const origin = cors.originList === undefined ? cors.allowOrigin.trim() : "";
  if (origin !== "")
    head += `Access-Control-Allow-Origin: ${origin}\r\nAccess-Control-Expose-Headers: ${HttpDefaults.corsExposeHeaders}\r\n`;
  if (cors.originList !== undefined) head += "Vary: Origin\r\n";
  head += `Content-Type: ${HttpDefaults.jsonContentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
  socket.end(headOnly ? head : head + body, () => socket.destroy());
  // A peer that never reads must not keep the socket: the answer gets a moment to leave, then it goes.
  setTimeout(() => socket.destroy(), HttpDefaults.errorAnswerLingerMs).unref();
}
