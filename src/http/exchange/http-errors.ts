import { TenonError } from "../../errors.js";
import { stackTracesBack, stackTracesOff } from "../../stack-traces.js";
import { HttpDefaults, HttpStatus, HttpMessages } from "./http-messages.js";

/**
 * An error that carries the HTTP status it is answered with. A handler may throw one with any status;
 * a 4xx answers `{"status", "message"}` with this message, a 5xx answers the constant body (the message
 * goes only to the log). A status below 500 (a 4xx) is an answer to the client, not a fault of the server: it is
 * built without a stack trace (its `stack` is its first line alone), since V8 spends some 7 us capturing one, more
 * than the rest of a 404 costs, and nothing reads it. A 5xx keeps its trace. Where `Error.stackTraceLimit` cannot be written
 * (frozen intrinsics), a 4xx has its trace too.
 */
export class HttpError extends TenonError {
  /** The status code of the answer. */
  readonly status: number;
  /** @param status the HTTP status code. @param message the text of the answer (4xx) or of the log (5xx). */
  constructor(status: number, message: string, options?: ErrorOptions) {
    if (status < 500) {
      const limit = stackTracesOff();
      try {
        super(message, options);
      } finally {
        stackTracesBack(limit);
      }
    } else super(message, options);
    this.status = status;
  }
}

/**
 * A refused server configuration: a change after `start()`, an invalid
 * bind address, a route shape the router refuses, or a `start()` whose preconditions fail. Thrown to the
 * application, not answered to clients (inside a handler it would be a 500 like any other error).
 */
export class HttpServerError extends TenonError {}

/** An absent entity: answered 404 `Entity <id> not found.` */
export class HttpNotFoundError extends HttpError {
  /** @param id the id that was looked up. */
  constructor(id: string | number) {
    super(HttpStatus.notFound, HttpMessages.entityNotFound(id));
  }
}

/**
 * The caller is not authenticated: answered 401 `Access unauthorized: <path>.` with a `WWW-Authenticate`
 * header. The message given here goes to the log only, never to the client.
 */
export class HttpUnauthorizedError extends HttpError {
  /** The value of the `WWW-Authenticate` header, such as `Bearer` or `Basic realm="tenon"`. */
  readonly challenge: string;
  /** @param challenge the `WWW-Authenticate` value. @param reason why (for the log). */
  constructor(challenge = "Bearer", reason = "Unauthorized.") {
    super(HttpStatus.unauthorized, reason);
    this.challenge = challenge;
  }
}

/** The caller is known but not allowed: answered 403 `Access forbidden: <path>.` (the message is for the log). */
export class HttpForbiddenError extends HttpError {
  /** @param reason why (for the log). */
  constructor(reason = "Forbidden.") {
    super(HttpStatus.forbidden, reason);
  }
}

/** No route at the address answers the method: answered 405 with `Allow` listing the methods it answers (none for HEAD, PATCH, TRACE...). */
export class HttpMethodNotAllowedError extends HttpError {
  /** The methods the address answers; empty for a method the server never routes. */
  readonly allow: readonly string[];
  /** @param method the method asked. @param path the address. @param allow the methods it answers. */
  constructor(method: string, path: string, allow: readonly string[]) {
    super(HttpStatus.methodNotAllowed, HttpMessages.methodNotAllowed(method, path));
    this.allow = allow;
  }
}

/**
 * The process cannot take requests now (draining, or its readiness check failed): `GET <base>/ready`
 * answers 503 `{"status": 503, "message": "<reason>"}` with `Retry-After`. Unlike other 5xx answers the
 * reason is shown, since it is one of the server's fixed texts; the cause goes only to the log.
 */
export class HttpNotReadyError extends HttpError {
  /** @param reason one of the server's fixed not-ready texts. @param options the cause, for the log. */
  constructor(reason: string, options?: ErrorOptions) {
    super(HttpStatus.serviceUnavailable, reason, options);
  }
}

/**
 * A service the request needs failed for a moment or did not answer in time (the rate-limit store away or
 * slow): answered like a transient database failure, 503 with `Retry-After` and
 * `{"status":503,"message":"Service temporarily unavailable: try again."}`. The message and the cause go only
 * to the log, with the answer's task id.
 */
export class HttpServiceUnavailableError extends HttpError {
  /** @param reason what failed (for the log). @param options the cause, for the log. */
  constructor(reason: string, options?: ErrorOptions) {
    super(HttpStatus.serviceUnavailable, reason, options);
  }
}

/**
 * The client's connection closed while its request waited for something before its handler (the rate-limit
 * store, authentication): the handler does not run, since nothing it did could be answered and a write would
 * be done for a client that has given up. Nothing is sent; the response log records status 499 with this
 * message.
 */
export class HttpClientGoneError extends HttpError {
  /** @param reason what the request waited for when its client went (one of the server's fixed texts). */
  constructor(reason: string) {
    super(HttpDefaults.clientGoneStatus, reason);
  }
}

/**
 * The failure of one item of a bulk request: answered as its cause would be (400, 404, 409, 422...), with
 * the item's `"operation"` and `"index"` added to the body. A cause answered 5xx keeps its constant body.
 */
export class HttpBulkItemError extends TenonError {
  /** The list of the failed item: `insert`, `update` or `delete`. */
  readonly operation: string;
  /** The item's position in its list, from 0. */
  readonly index: number;
  /** @param operation the item's list. @param index its position. @param cause what the item raised. */
  constructor(operation: string, index: number, cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.operation = operation;
    this.index = index;
  }
}

/** One refused line of an import as its answer shows it (`HttpImportRefusedError`): its number, the member at fault when one is, and why. */
export interface HttpImportLineError {
  /** The line's number in the body, from 1. */
  readonly line: number;
  /** The wire name of the member at fault, when the failure is one member's. */
  readonly member?: string;
  /** What is wrong, as the line's own write would have said it. */
  readonly message: string;
}

/** A refused line of an import and what its write raised. */
export interface HttpRefusedLine {
  /** The line's number in the body, from 1. */
  readonly line: number;
  /** What reading or writing the line raised (an `InvalidInputError`, a `ValidationError`, a 4xx `HttpError` ...). */
  readonly cause: unknown;
}

/**
 * An import that wrote nothing because some of its lines were refused. Answered with the status the first
 * refused line's own write would have had (400 unreadable, 409 a taken id, 422 a validation failure ...) and
 * the body `{"status", "message", "lines": [{"line", "member"?, "message"}]}`, one entry per failure (a line
 * with two invalid members has two).
 */
export class HttpImportRefusedError extends TenonError {
  /** The refused lines, in the order they were found. */
  readonly refused: readonly HttpRefusedLine[];
  /** Whether reading stopped before the body's end, so that more lines may be bad. */
  readonly more: boolean;
  /** @param refused the refused lines. @param more whether more lines may be bad. */
  constructor(refused: readonly HttpRefusedLine[], more: boolean) {
    super(HttpMessages.importRefused(refused.length, more));
    this.refused = refused;
    this.more = more;
  }
}
