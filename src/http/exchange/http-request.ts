import type { IncomingMessage } from "node:http";
import { clientIpOf, loopbackProxies, type TrustedProxyRule } from "./client-ip.js";
import { HttpError } from "./http-errors.js";
import { HttpStatus, HttpMessages } from "./http-messages.js";
import type { HttpUser } from "./http-user.js";
import { isHeaderName } from "./header-name.js";
import { requestIdOf } from "./request-id.js";
import type { RequestObservation, SlowRequest } from "./request-observation.js";
import { StreamedBody } from "./streamed-body.js";

/** A name and its value: one header or one query-string parameter. */
export type HttpNameValue = readonly [name: string, value: string];

/** What a request borrows from its server: the trusted-proxy rule and the inline log. @internal */
export interface RequestServices {
  /** Decides whether a peer's `X-Forwarded-For` is believed. */
  readonly isTrustedProxy: TrustedProxyRule;
  /** Writes an application's log line inline, not queued; undefined without a log writer. */
  readonly logAction: ((host: string, message: string, requestId: string) => void) | undefined;
}

const noServices: RequestServices = { isTrustedProxy: loopbackProxies, logAction: undefined };
const emptyBody = Buffer.alloc(0);
const noParams: readonly HttpNameValue[] = Object.freeze([]);
/** Up to this many headers, repeated names are found by a linear search, which beats a hash set at that size. */
const FEW_HEADERS = 24;

/**
 * One request as the application sees it. Everything that costs something
 * (the header list, the parameters, the client address, the JSON value) is computed on first use.
 *
 * Repeated headers keep their first occurrence, names compared without case; later ones are dropped from
 * `header()` and from `headers` alike. Query parameters follow the same rule, with
 * names compared as sent.
 */
export class HttpRequest {
  /** The method the route was resolved with (the override when one was accepted). */
  readonly method: string;
  /** The method on the request line. */
  readonly sentMethod: string;
  /** The request target as sent: path and query. */
  readonly uri: string;
  /** The raw body (empty when none; cut at the ceiling when the connection was dropped for its size). */
  readonly body: Buffer;
  /** The authenticated caller, filled by the authentication class; undefined for anonymous requests. */
  user: HttpUser | undefined = undefined;
  /** @internal What metrics, tracing and the slow request log keep about the request; undefined when they are off. */
  observation: RequestObservation | undefined = undefined;

  readonly #raw: IncomingMessage;
  #remoteIp: string | undefined;
  readonly #services: RequestServices;
  #path: string | undefined;
  #clientIp: string | undefined;
  #headers: readonly HttpNameValue[] | undefined;
  #params: readonly HttpNameValue[] | undefined;
  #json: unknown;
  #jsonRead = false;
  #requestId: string | undefined;
  #bodyStream: StreamedBody | undefined;

  /** @internal Built by the server once the body is read. */
  constructor(raw: IncomingMessage, method: string, body: Buffer | undefined, services: RequestServices = noServices) {
    this.#raw = raw;
    this.sentMethod = raw.method ?? "";
    this.method = method;
    this.uri = raw.url ?? "/";
    this.body = body ?? emptyBody;
    this.#services = services;
  }

  /**
   * True once the client's connection has closed (the client gave up or went away): nothing can be answered
   * to it any more. The server checks it before it runs a handler that had to wait.
   */
  get clientGone(): boolean {
    return this.#raw.socket?.destroyed !== false;
  }

  /** The TCP peer address, always the raw socket address. */
  get remoteIp(): string {
    // Read on first use, not for every request: the server reads each connection's peer once as it opens
    // (server-listen.ts), so node has it cached on the socket even after the connection closed.
    this.#remoteIp ??= this.#raw.socket?.remoteAddress ?? "";
    return this.#remoteIp;
  }

  /**
   * The request's id, answered in `X-Request-Id` and carried by every log record of the request: the
   * caller's `X-Request-Id` when it is well-formed (1 to 128 characters of letters, digits and `-_.:+/=`),
   * else a fresh random UUID.
   */
  get requestId(): string {
    this.#requestId ??= requestIdOf(this.#raw.rawHeaders);
    return this.#requestId;
  }

  /** @internal What the response log record of a slow request carries; undefined for others. */
  get slowRequest(): SlowRequest | undefined {
    return this.observation?.slow;
  }

  /** True when `method` differs from `sentMethod` (an accepted method override). */
  get isMethodOverridden(): boolean {
    return this.method !== this.sentMethod;
  }

  /** The `Host` header ('' when absent). */
  get host(): string {
    return this.header("host") ?? "";
  }

  /** The path without the query string, percent-decoded (as sent when it cannot be decoded). */
  get path(): string {
    if (this.#path === undefined) {
      const query = this.uri.indexOf("?");
      const raw = query < 0 ? this.uri : this.uri.slice(0, query);
      this.#path = raw;
      if (raw.includes("%")) {
        try {
          this.#path = decodeURIComponent(raw);
        } catch {
          // a malformed escape: keep the path as sent
        }
      }
    }
    return this.#path;
  }

  /** The query string without its `?` ('' when none). */
  get query(): string {
    const query = this.uri.indexOf("?");
    return query < 0 ? "" : this.uri.slice(query + 1);
  }

  /**
   * The client address: `remoteIp`, or behind a trusted proxy (`HttpServer.trustedProxies`, loopback peers
   * by default) the last `X-Forwarded-For` entry; earlier entries are ignored.
   */
  get clientIp(): string {
    this.#clientIp ??= clientIpOf(this.remoteIp, this.header("x-forwarded-for"), this.#services.isTrustedProxy);
    return this.#clientIp;
  }

  /**
   * Writes `message` through the server's registered log writer, inline (`writeAction` with an
   * `HttpLogAction` carrying this request's host). Does nothing when no writer is registered;
   * a writer's failure never reaches the caller.
   */
  log(message: string): void {
    this.#services.logAction?.(this.host, message, this.requestId);
  }

  /**
   * The body as it arrives, for a route that reads bodies of this request's media type as a stream
   * (`HttpRouteOptions.streamedBody`): an async iterable of chunks, read once, taken from the client only as it
   * is iterated. `body` is then empty. Past `HttpServer.maxStreamedContentLength` bytes the iteration throws an
   * `HttpError` 413, after `bodyTimeout` ms without a chunk a 408. Undefined for every other request (`body` holds it).
   */
  get bodyStream(): AsyncIterable<Buffer> | undefined {
    return this.#bodyStream;
  }

  /** @internal The server streams this request's body: `bodyStream` reads it, bounded by `limit` bytes and `idleMs`. */
  streamBody(limit: number, idleMs: number): void {
    this.#bodyStream = new StreamedBody(this.#raw, limit, idleMs);
  }

  /** @internal Whether the body has been read to its end (a streamed body left unread keeps the connection from being reused). */
  get bodyComplete(): boolean {
    return this.#raw.complete;
  }

  /** The `Content-Type` header ('' when absent). */
  get contentType(): string {
    return this.header("content-type") ?? "";
  }

  /** The number of body bytes read. */
  get contentLength(): number {
    return this.body.length;
  }

  /** The body as UTF-8 text. */
  get text(): string {
    return this.body.toString("utf8");
  }

  /**
   * The body as a JSON value, parsed on first use. An empty body reads as `{}`; a leading BOM is accepted;
   * malformed JSON throws an `HttpError` 400.
   */
  get jsonContent(): unknown {
    if (!this.#jsonRead) {
      this.#json = parseJsonBody(this.body);
      this.#jsonRead = true;
    }
    return this.#json;
  }

  /** The value of the first header called `name` (compared without case), or undefined. */
  header(name: string): string | undefined {
    const raw = this.#raw.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) if (isHeaderName(raw[i], name)) return raw[i + 1];
    return undefined;
  }

  /** Every header in the order sent, a repeated name kept only at its first occurrence. */
  get headers(): readonly HttpNameValue[] {
    if (this.#headers === undefined) {
      const raw = this.#raw.rawHeaders;
      const list: HttpNameValue[] = [];
      // the names seen so far, lower-cased: a list searched in order for the usual dozen headers, a set beyond
      const seen: string[] | Set<string> = raw.length > 2 * FEW_HEADERS ? new Set<string>() : [];
      for (let i = 0; i < raw.length; i += 2) {
        const lower = raw[i].toLowerCase();
        if (Array.isArray(seen)) {
          if (seen.includes(lower)) continue;
          seen.push(lower);
        } else {
          if (seen.has(lower)) continue;
          seen.add(lower);
        }
        list.push([raw[i], raw[i + 1]]);
      }
      this.#headers = Object.freeze(list);
    }
    return this.#headers;
  }

  /** The query-string parameters, decoded, a repeated name kept only at its first occurrence. */
  get params(): readonly HttpNameValue[] {
    if (this.#params === undefined) {
      if (this.uri.indexOf("?") < 0) return (this.#params = noParams);
      const seen = new Set<string>();
      const list: HttpNameValue[] = [];
      for (const [name, value] of new URLSearchParams(this.query)) {
        if (seen.has(name)) continue;
        seen.add(name);
        list.push([name, value]);
      }
      this.#params = Object.freeze(list);
    }
    return this.#params;
  }

  /** The value of the query parameter `name`, or undefined. */
  param(name: string): string | undefined {
    for (const [candidate, value] of this.params) if (candidate === name) return value;
    return undefined;
  }
}

function parseJsonBody(body: Buffer): unknown {
  let text = body.toString("utf8");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new HttpError(HttpStatus.badRequest, HttpMessages.malformedJson, { cause: error });
  }
}

/** The media type of a `Content-Type` value: lower case, without its parameters (`application/json; charset=utf-8` is `application/json`). */
export function mediaTypeOf(contentType: string): string {
  const semicolon = contentType.indexOf(";");
  return (semicolon < 0 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}
