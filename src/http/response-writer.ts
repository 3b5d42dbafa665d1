import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { HttpCorsConfig } from "./http-cors-config.js";
import { HttpResponse } from "./http-response.js";
import { HttpDefaults, HttpStatus } from "./http-messages.js";

/** Answers a CORS preflight: 200, empty body, the CORS headers (SPEC.md 4.5). @internal */
export function writePreflight(res: ServerResponse, cors: HttpCorsConfig, closeConnection: boolean): void {
  const headers: OutgoingHttpHeaders = {
    "access-control-allow-methods": HttpDefaults.corsAllowMethods,
    "access-control-allow-headers":
      cors.allowHeaders.trim() === ""
        ? HttpDefaults.corsAlwaysAllowedHeaders
        : `${cors.allowHeaders}, ${HttpDefaults.corsAlwaysAllowedHeaders}`,
    "access-control-max-age": String(cors.maxAge),
    "content-length": 0,
  };
  if (cors.allowOrigin !== "") headers["access-control-allow-origin"] = cors.allowOrigin;
  if (HttpResponse.serverHeader !== "") headers.server = HttpResponse.serverHeader;
  if (closeConnection) headers.connection = "close";
  res.writeHead(HttpStatus.ok, headers);
  res.end();
}

/**
 * Sends `response`: status, the handler's headers, Server, the CORS origin, Content-Type (JSON when there
 * is content and none was set), Content-Length, and `Connection: close` when asked. Throws (before
 * anything is sent) when a header the handler set is invalid. @internal
 */
export function writeResponse(res: ServerResponse, response: HttpResponse, cors: HttpCorsConfig, closeConnection: boolean): void {
  const content = response.content;
  const headers: Record<string, string | number> = {};
  response.copyHeadersTo(headers);
  if (HttpResponse.serverHeader !== "") headers.server = HttpResponse.serverHeader;
  if (cors.allowOrigin !== "") headers["access-control-allow-origin"] = cors.allowOrigin;
  if (content !== "") headers["content-type"] = response.contentType === "" ? HttpDefaults.jsonContentType : response.contentType;
  else if (response.contentType !== "") headers["content-type"] = response.contentType;
  if (response.contentEncoding !== "") headers["content-encoding"] = response.contentEncoding;
  headers["content-length"] = Buffer.byteLength(content);
  if (closeConnection) headers.connection = "close";
  res.writeHead(response.statusCode, headers);
  res.end(content);
}
