import type { ServerResponse } from "node:http";
import { isSettledDisposal } from "../../disposal.js";
import { isInt32 } from "../../values/integer-range.js";
import { HttpError } from "../exchange/http-errors.js";
import { isHeaderName } from "../exchange/header-name.js";
import { HttpDefaults, HttpMessages, HttpStatus } from "../exchange/http-messages.js";
import type { HttpRequest } from "../exchange/http-request.js";
import type { HttpResponse } from "../exchange/http-response.js";
import type { ResultJson } from "./result-json.js";

/**
 * The small steps of the request pipeline (request-pipeline.ts): header scans, argument conversion, the
 * handler's result, the context's disposal and the server's own warnings.
 * @internal
 */

/** The optional hooks a context class may have. */
export interface ContextHooks {
  attachRequest?(request: HttpRequest, response: HttpResponse): void;
  /**
   * Called once when the client goes away (its connection closes) while an asynchronous handler still runs:
   * the place to cancel the database statement it waits for (an ORM session's `cancel()`).
   */
  abort?(): void;
  /** May answer undefined when nothing is left to wait for (no session was opened). */
  [Symbol.asyncDispose]?(): PromiseLike<void> | void;
  [Symbol.dispose]?(): void;
}

/** Calls the context's `abort()` when the client's connection closes before the answer was written. */
export function abortWhenGone(res: ServerResponse, context: ContextHooks): void {
  res.once("close", () => {
    if (res.writableFinished) return;
    try {
      context.abort?.();
    } catch (error) {
      reportInternalError(error);
    }
  });
}

/** True for `host` in any case, without the lower-case copy `toLowerCase()` would make on every request. */
export function isHost(name: string): boolean {
  return (
    (name.charCodeAt(0) | 32) === 104 &&
    (name.charCodeAt(1) | 32) === 111 &&
    (name.charCodeAt(2) | 32) === 115 &&
    (name.charCodeAt(3) | 32) === 116
  );
}

/** The path part of a request target (absolute-form targets reduced to their path). */
export function rawPathOf(uri: string): string {
  const query = uri.indexOf("?");
  const path = query < 0 ? uri : uri.slice(0, query);
  if (path.charCodeAt(0) === 47) return path;
  try {
    return new URL(path).pathname;
  } catch {
    return path;
  }
}

/** The first of the three method-override headers (`X-HTTP-Method-Override`, `X-HTTP-Method`, `X-METHOD-OVERRIDE`), in the order sent. */
export function methodOverrideOf(raw: readonly string[]): string | undefined {
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    const length = name.length;
    if (
      (length === 22 && isHeaderName(name, "x-http-method-override")) ||
      (length === 13 && isHeaderName(name, "x-http-method")) ||
      (length === 17 && isHeaderName(name, "x-method-override"))
    )
      return raw[i + 1];
  }
  return undefined;
}

/**
 * The int32 arguments of a route from its placeholder segments; a segment that is not one (an optional `-` and
 * 1 to 10 decimal digits, within int32) is a 400 naming the request's path.
 */
export function int32Args(values: readonly string[], request: HttpRequest): number[] {
  // Sized at once (most routes have one placeholder): no growing of an empty array on the request path.
  const args: number[] = values.length === 1 ? [0] : new Array<number>(values.length).fill(0);
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    const number = decimalInt(value);
    if (!isInt32(number)) {
      throw new HttpError(HttpStatus.badRequest, HttpMessages.invalidInt32Segment(value, request.path));
    }
    args[i] = number;
  }
  return args;
}

/**
 * The number an optional `-` and 1 to 10 decimal digits write, else NaN: what `/^-?\d{1,10}$/` and `Number()`
 * answered together, read in one pass (the pattern and the conversion cost some 800 instructions a request).
 */
function decimalInt(text: string): number {
  const length = text.length;
  const negative = length > 0 && text.charCodeAt(0) === 45;
  const start = negative ? 1 : 0;
  if (length - start < 1 || length - start > 10) return Number.NaN;
  let value = 0;
  for (let i = start; i < length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return Number.NaN;
    value = value * 10 + digit;
  }
  return negative ? -value : value;
}

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null && typeof (value as PromiseLike<unknown>).then === "function";
}

/**
 * A handler's return value, other than undefined, becomes the JSON content unless the handler set content; `json`
 * is the route's writer (`RouteTarget.resultJson`), or the one shared by the answers of async handlers.
 */
export function serializeResult(response: HttpResponse, result: unknown, json: ResultJson): void {
  if (result !== undefined && !response.isContentAssigned) {
    const text = json.of(result);
    response.setContentText(text, json.byteLengthOf(text));
    if (response.contentType === "") response.contentType = HttpDefaults.jsonContentType;
  }
}

/**
 * Disposes a context; returns a promise only when there is something to wait for (its failure is the caller's
 * to report). An `[Symbol.asyncDispose]()` that answers undefined, or what a session's `dispose()` answers when
 * it gave its connection back at once, is finished: the request is counted down without a promise reaction.
 */
export function disposeContext(context: ContextHooks): PromiseLike<void> | undefined {
  try {
    const asyncDispose = context[Symbol.asyncDispose];
    if (typeof asyncDispose === "function") {
      const disposal = asyncDispose.call(context);
      if (disposal === undefined || isSettledDisposal(disposal)) return undefined;
      return disposal instanceof Promise ? disposal : Promise.resolve(disposal);
    }
    const dispose = context[Symbol.dispose];
    if (typeof dispose === "function") dispose.call(context);
  } catch (error) {
    reportDisposeError(error);
  }
  return undefined;
}

export function reportDisposeError(error: unknown): void {
  process.emitWarning(`Tenon: disposing a request context failed: ${String(error)}`, "TenonWarning");
}

export function reportInternalError(error: unknown): void {
  process.emitWarning(`Tenon: a request failed inside the server: ${String(error)}`, "TenonWarning");
}
