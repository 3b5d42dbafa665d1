import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { HttpCorsConfig } from "./http-cors-config.js";
import { HttpResponse } from "../exchange/http-response.js";
import { HttpDefaults, HttpStatus } from "../exchange/http-messages.js";
import { requestIdOf } from "../exchange/request-id.js";
import { isHeaderName } from "../exchange/header-name.js";

/** The first `Origin` header of a request, read only when the CORS answer depends on it. */
function originOf(req: IncomingMessage | undefined): string | undefined {
  const raw = req?.rawHeaders;
  if (raw === undefined) return undefined;
  for (let i = 0; i < raw.length; i += 2) if (isHeaderName(raw[i], "origin")) return raw[i + 1];
  return undefined;
}

/**
 * Adds the CORS headers of an answer to `headers`: the allowed origin (when one applies), `Vary: Origin`
 * when that depends on the request, and on answers other than a preflight the headers a script may read.
 * @internal
 */
export function addCorsHeaders(
  headers: Record<string, string | number>,
  cors: HttpCorsConfig,
  req: IncomingMessage | undefined,
  preflight: boolean,
): void {
  if (cors.allowOrigin === "") return;
  const list = cors.originList;
  const origin = list === undefined ? cors.allowOrigin : cors.allowedOriginFor(originOf(req));
  if (list !== undefined) headers.vary = headers.vary === undefined ? "Origin" : `${headers.vary}, Origin`;
  if (origin === "") return;
  headers["access-control-allow-origin"] = origin;
  if (!preflight) headers["access-control-expose-headers"] = HttpDefaults.corsExposeHeaders;
}

/** Answers a CORS preflight: 200, empty body, the CORS headers; no context is built. @internal */
export function writePreflight(res: ServerResponse, cors: HttpCorsConfig, closeConnection: boolean): void {
  const headers: OutgoingHttpHeaders & Record<string, string | number> = {
    "access-control-allow-methods": HttpDefaults.corsAllowMethods,
    "access-control-allow-headers":
      cors.allowHeaders.trim() === ""
        ? HttpDefaults.corsAlwaysAllowedHeaders
        : `${cors.allowHeaders}, ${HttpDefaults.corsAlwaysAllowedHeaders}`,
    "access-control-max-age": String(cors.maxAge),
    "content-length": 0,
  };
  addCorsHeaders(headers, cors, res.req, true);
  if (HttpResponse.serverHeader !== "") headers.server = HttpResponse.serverHeader;
  if (closeConnection) headers.connection = "close";
  res.writeHead(HttpStatus.ok, headers);
  res.end();
}

/**
 * Sends `response`: status, the handler's headers, Server, `X-Request-Id`, the CORS headers, Content-Type
 * (JSON when there is content and none was set), Content-Length, and `Connection: close` when asked. To a HEAD request the
 * same status and headers go without the body (node:http leaves it out). Throws (before anything is sent)
 * when a header the handler set is invalid. @internal
 */
export function writeResponse(
  res: ServerResponse,
  response: HttpResponse,
  cors: HttpCorsConfig,
  closeConnection: boolean,
  requestId: string,
): void {
  const bytes = response.contentBytes;
  const content = bytes ?? response.content;
  if (cors.allowOrigin === "") {
    writeWithoutCors(res, response, content, closeConnection, requestId);
    return;
  }
  const headers: Record<string, string | number> = {};
  response.copyHeadersTo(headers);
  if (HttpResponse.serverHeader !== "") headers.server = HttpResponse.serverHeader;
  headers["x-request-id"] = requestId;
  if (cors.allowOrigin !== "") addCorsHeaders(headers, cors, res.req, false);
  if (content.length > 0) headers["content-type"] = response.contentType === "" ? HttpDefaults.jsonContentType : response.contentType;
  else if (response.contentType !== "") headers["content-type"] = response.contentType;
  if (response.contentEncoding !== "") headers["content-encoding"] = response.contentEncoding;
  // A 304 has no content, and a Content-Length there would claim the length of the 200 (RFC 9110 8.6).
  if (response.statusCode !== HttpStatus.notModified) headers["content-length"] = response.contentLength;
  if (closeConnection) headers.connection = "close";
  res.writeHead(response.statusCode, headers);
  res.end(content);
}

/**
 * `writeResponse` without CORS, the headers given to node:http as one flat list of names and values: node:http
 * then reads them by index, where an object costs it a walk over its keys, a property test and a lookup per
 * header. The server's headers replace the handler's of the same name, as the object's keys did.
 */
function writeWithoutCors(
  res: ServerResponse,
  response: HttpResponse,
  content: string | Uint8Array,
  closeConnection: boolean,
  requestId: string,
): void {
  const server = HttpResponse.serverHeader;
  const type = content.length > 0 && response.contentType === "" ? HttpDefaults.jsonContentType : response.contentType;
  const encoding = response.contentEncoding;
  // A 304 has no content, and a Content-Length there would claim the length of the 200 (RFC 9110 8.6).
  const sized = response.statusCode !== HttpStatus.notModified;
  const own = response.headerTriples;
  if (own === undefined && server !== "" && type !== "" && encoding === "" && sized && !closeConnection) {
    // The usual answer (a body, no header of the handler's): the list written at once, with no growing of an array.
    res.writeHead(response.statusCode, [
      "server",
      server,
      "x-request-id",
      requestId,
      "content-type",
      type,
      "content-length",
      response.contentLength,
    ]);
    res.end(content);
    return;
  }
  const headers: (string | number)[] = [];
  if (own !== undefined) {
    for (let i = 0; i < own.length; i += 3) {
      const name = own[i];
      if (
        name === "x-request-id" ||
        (name === "server" && server !== "") ||
        (name === "content-type" && type !== "") ||
        (name === "content-encoding" && encoding !== "") ||
        (name === "content-length" && sized) ||
        (name === "connection" && closeConnection)
      )
        continue;
      headers.push(name, own[i + 2]);
    }
  }
  if (server !== "") headers.push("server", server);
  headers.push("x-request-id", requestId);
  if (type !== "") headers.push("content-type", type);
  if (encoding !== "") headers.push("content-encoding", encoding);
  if (sized) headers.push("content-length", response.contentLength);
  if (closeConnection) headers.push("connection", "close");
  res.writeHead(response.statusCode, headers);
  res.end(content);
}

/**
 * Sends the head of a streamed `response` (`HttpResponse.stream`): status, the handler's headers and those of
 * `writeResponse`, without `Content-Length` (the body is chunked and ends when the stream does), and
 * `Cache-Control: no-cache` unless the handler set one, so that no cache holds a stream back. @internal
 */
export function writeStreamHead(
  res: ServerResponse,
  response: HttpResponse,
  cors: HttpCorsConfig,
  closeConnection: boolean,
  requestId: string,
): void {
  const headers: Record<string, string | number> = {};
  response.copyHeadersTo(headers);
  if (HttpResponse.serverHeader !== "") headers.server = HttpResponse.serverHeader;
  headers["x-request-id"] = requestId;
  if (cors.allowOrigin !== "") addCorsHeaders(headers, cors, res.req, false);
  if (response.contentType !== "") headers["content-type"] = response.contentType;
  headers["cache-control"] ??= "no-cache";
  if (closeConnection) headers.connection = "close";
  res.writeHead(response.statusCode, headers);
  res.flushHeaders();
}

/**
 * Answers a request the server refuses by itself before any context exists (417, 413 instead of 100
 * Continue, a body that arrives too slowly): the JSON error body, the Server and CORS headers, and
 * `Connection: close`, since the rest of the request may still be on its way. @internal
 */
export function writeClientError(res: ServerResponse, cors: HttpCorsConfig, status: number, message: string): void {
  const response = new HttpResponse();
  response.reset(status, JSON.stringify({ status, message }), HttpDefaults.jsonContentType);
  writeResponse(res, response, cors, true, requestIdOf(res.req?.rawHeaders ?? []));
}
