import { HttpStatus } from "./http-messages.js";

/**
 * The catalogue of every status the server answers by itself: its body, its headers and the routes that can
 * give it. The error answers (error-answer.ts) take their status, body kind and headers from here, and the
 * OpenAPI document lists, for each route, the entries that apply to it. The catalogue is keyed by
 * `HttpStatus`'s names, so a status added there does not compile until it has an entry, and then appears in
 * every document by itself (one home for each fact).
 * @internal
 */

/** What decides which answers a route can give (read when the OpenAPI document is built, never per request). @internal */
export interface HttpRouteFacts {
  /** The HTTP method, upper case. */
  readonly method: string;
  /** The number of `?` placeholders of its pattern. */
  readonly placeholders: number;
  readonly requiresAuthentication: boolean;
  readonly areas: readonly string[];
  /** The status of a success that the route's description declares (default 200). */
  readonly successStatus: number;
  /** Whether a rate limit of the server (`HttpServer.addRateLimit`) can apply to the route. */
  readonly rateLimited: boolean;
}

/**
 * The body of an answer: `route` the route's own JSON, `none` no body, `error` `{status, message}`,
 * `validation` `{status, message, errors}`, `serverError` `{status, message, taskId}`. @internal
 */
export type HttpAnswerBody = "route" | "none" | "error" | "validation" | "serverError";

/** The headers an answer of the catalogue carries. @internal */
export type HttpAnswerHeader = "WWW-Authenticate" | "Allow" | "Retry-After" | "ETag" | "RateLimit" | "RateLimit-Policy";

/** One status of the catalogue. @internal */
export interface HttpStatusEntry {
  readonly status: number;
  readonly body: HttpAnswerBody;
  readonly headers: readonly HttpAnswerHeader[];
  /** Whether a route can give this answer. */
  readonly appliesTo: (route: HttpRouteFacts) => boolean;
}

/** The name of a status in `HttpStatus` (and in the catalogue). @internal */
export type HttpStatusName = keyof typeof HttpStatus;

const always = (): boolean => true;
const takesBody = (route: HttpRouteFacts): boolean => route.method === "POST" || route.method === "PUT" || route.method === "PATCH";
const writes = (route: HttpRouteFacts): boolean => route.method !== "GET";
const conditionalWrite = (route: HttpRouteFacts): boolean =>
  route.method === "PUT" || route.method === "PATCH" || route.method === "DELETE";

function entry(
  name: HttpStatusName,
  body: HttpAnswerBody,
  appliesTo: (route: HttpRouteFacts) => boolean,
  headers: readonly HttpAnswerHeader[] = [],
): HttpStatusEntry {
  return { status: HttpStatus[name], body, headers, appliesTo };
}

/** The catalogue, by `HttpStatus` name. @internal */
export const HttpStatusCatalogue: { readonly [N in HttpStatusName]: HttpStatusEntry } = {
  ok: entry("ok", "route", (route) => route.successStatus === HttpStatus.ok),
  created: entry("created", "route", (route) => route.successStatus === HttpStatus.created),
  notModified: entry("notModified", "none", (route) => route.method === "GET" && route.placeholders > 0, ["ETag"]),
  badRequest: entry("badRequest", "error", always),
  unauthorized: entry("unauthorized", "error", (route) => route.requiresAuthentication, ["WWW-Authenticate"]),
  forbidden: entry("forbidden", "error", (route) => route.areas.length > 0),
  notFound: entry("notFound", "error", (route) => route.placeholders > 0 || route.method === "PUT"),
  methodNotAllowed: entry("methodNotAllowed", "error", always, ["Allow"]),
  conflict: entry("conflict", "error", writes),
  requestTimeout: entry("requestTimeout", "error", always),
  // Only a change stream answers it (its route description lists it): no route facts tell one apart.
  gone: entry("gone", "error", () => false),
  preconditionFailed: entry("preconditionFailed", "error", conditionalWrite),
  payloadTooLarge: entry("payloadTooLarge", "error", takesBody),
  expectationFailed: entry("expectationFailed", "error", takesBody),
  unprocessableEntity: entry("unprocessableEntity", "validation", takesBody),
  preconditionRequired: entry("preconditionRequired", "error", conditionalWrite),
  tooManyRequests: entry("tooManyRequests", "error", (route) => route.rateLimited, ["Retry-After", "RateLimit-Policy", "RateLimit"]),
  headersTooLarge: entry("headersTooLarge", "error", always),
  internalServerError: entry("internalServerError", "serverError", always),
  serviceUnavailable: entry("serviceUnavailable", "error", always, ["Retry-After"]),
};

const byStatus = new Map<number, HttpStatusEntry>(Object.values(HttpStatusCatalogue).map((item) => [item.status, item]));

/** The catalogue's entry of a status, or undefined for a status the server never answers by itself. @internal */
export function httpStatusEntryOf(status: number): HttpStatusEntry | undefined {
  return byStatus.get(status);
}

/** The catalogue as a list ordered by status. @internal */
export function httpStatusEntries(): HttpStatusEntry[] {
  return [...byStatus.values()].sort((a, b) => a.status - b.status);
}
