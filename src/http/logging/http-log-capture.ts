import { Buffer } from "node:buffer";
import { HttpLogRedactedNames } from "./http-log-redacted-names.js";
import type { HttpLogParameters } from "./http-log-parameters.js";
import {
  HttpLogError,
  HttpLogRequest,
  HttpLogResponse,
  type HttpLogNameValues,
  type HttpLogSlowRequest,
  type HttpLogUser,
} from "./http-log-records.js";
import { LogMessages, REDACTED } from "./log-messages.js";
import { renderError } from "./render-error.js";

/** The user of a request, as far as the log reads it (the shape of `HttpUser`). */
export interface LoggedUser {
  /** The user name. */
  readonly username: string;
  /** The user's areas. */
  readonly areas: Iterable<string>;
  /** The tenant identifier, copied whole. */
  readonly tenant?: string | null | undefined;
}

/** What the log reads of a request (the shape of `HttpRequest`). */
export interface LoggedRequest {
  /** The Host header, '' when absent. */
  readonly host: string;
  /** Path and query as sent. */
  readonly uri: string;
  /** The method on the request line. */
  readonly sentMethod: string;
  /** The TCP peer. */
  readonly remoteIp: string;
  /** The proxy-aware client address. */
  readonly clientIp: string;
  /** The authenticated user, once authentication ran. */
  readonly user?: LoggedUser | undefined;
  /** The Content-Type header, '' when absent. */
  readonly contentType: string;
  /** The body as read. */
  readonly body: Uint8Array;
  /** The query parameters in order. */
  readonly params: readonly (readonly [string, string])[];
  /** The headers, first occurrence of each name. */
  readonly headers: readonly (readonly [string, string])[];
  /** The request's id (`X-Request-Id`), carried by every record of the request. */
  readonly requestId?: string;
  /** Set for a request slower than the slow request threshold: its duration and statements. */
  readonly slowRequest?: HttpLogSlowRequest | undefined;
}

/** What the log reads of a response (the shape of `HttpResponse`). */
export interface LoggedResponse {
  /** The status code sent. */
  readonly statusCode: number;
  /** The body sent. */
  readonly content: string;
  /** The body sent as bytes (`HttpResponse.setContentBytes`): its length is logged, never its content. */
  readonly contentBytes?: Uint8Array | undefined;
  /** The body's length in bytes, when the response knows it (saves measuring the text again). */
  readonly contentLength?: number | undefined;
  /** The Content-Type sent. */
  readonly contentType?: string | undefined;
  /** The Content-Encoding sent. */
  readonly contentEncoding?: string | undefined;
}

/** `OnRedactContent`: receives the request and a captured body, returns the text to log. */
export type RedactContent<Req> = (request: Req, content: string) => string;

const FORM_TYPE = "application/x-www-form-urlencoded";
const textDecoder = new TextDecoder();

/** The path of a uri as sent, without its query string (whose values go to `params`, redacted). */
function pathOf(uri: string): string {
  const query = uri.indexOf("?");
  return query < 0 ? uri : uri.slice(0, query);
}

function isForm(contentType: string): boolean {
  return contentType.length >= FORM_TYPE.length && contentType.slice(0, FORM_TYPE.length).toLowerCase() === FORM_TYPE;
}

const nothing: HttpLogNameValues = Object.freeze([]);

function redact(values: readonly (readonly [string, string])[]): HttpLogNameValues {
  if (values.length === 0) return nothing;
  const copy = new Array<readonly [string, string]>(values.length);
  for (let i = 0; i < values.length; i++) {
    const [name, value] = values[i];
    copy[i] = [name, HttpLogRedactedNames.isRedacted(name) ? REDACTED : value];
  }
  return copy;
}

function isValidJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Applies `onRedactContent`; undefined (content omitted) when it throws or returns something other than text. */
function redactContent<Req>(redactor: RedactContent<Req> | undefined, request: Req, content: string): string | undefined {
  if (redactor === undefined) return content;
  try {
    const result = redactor(request, content);
    return typeof result === "string" ? result : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Builds the request entry on the request path. The body is captured only when
 * its size, known without reading it, is within `maxContentLength`; a form-encoded body becomes parameters
 * and is omitted with the content; any other body must be valid JSON.
 */
export function buildLogRequest<Req extends LoggedRequest>(
  request: Req,
  parameters: HttpLogParameters,
  redactor: RedactContent<Req> | undefined,
): HttpLogRequest {
  const body = request.body;
  const contentLength = body.byteLength;
  const form = isForm(request.contentType);
  let content: string | undefined = "";
  let contentOmitted = false;
  let formParams: readonly (readonly [string, string])[] = [];
  if (contentLength > 0) {
    if (!parameters.canLogContent(contentLength)) {
      contentOmitted = true;
    } else {
      const text = textDecoder.decode(body);
      if (form) {
        formParams = [...new URLSearchParams(text)];
        content = redactContent(redactor, request, new URLSearchParams(redact(formParams) as [string, string][]).toString());
      } else {
        content = isValidJson(text) ? redactContent(redactor, request, text) : undefined;
      }
      contentOmitted = content === undefined;
    }
  }
  const paramsCount = request.params.length + formParams.length;
  const paramsOmitted = (form && contentOmitted) || parameters.exceedsItemCount(paramsCount);
  const headersCount = request.headers.length;
  const headersOmitted = parameters.exceedsItemCount(headersCount);
  return new HttpLogRequest({
    time: Date.now(),
    requestId: request.requestId,
    host: request.host,
    uri: pathOf(request.uri),
    methodType: request.sentMethod,
    contentLength,
    contentOmitted,
    content,
    paramsCount,
    paramsOmitted,
    params: paramsOmitted ? undefined : redact(formParams.length === 0 ? request.params : [...request.params, ...formParams]),
    headersCount,
    headersOmitted,
    headers: headersOmitted ? undefined : redact(request.headers),
    remoteIp: request.remoteIp,
    clientIp: request.clientIp,
  });
}

function logUser(user: LoggedUser | undefined): HttpLogUser | undefined {
  if (user === undefined || user === null) return undefined;
  return { username: user.username, areas: Array.from(user.areas), tenant: user.tenant ?? undefined };
}

/** Builds the response entry on the request path: the body is captured like a request body, without the JSON check. */
export function buildLogResponse<Req extends LoggedRequest>(
  request: Req,
  response: LoggedResponse,
  parameters: HttpLogParameters,
  redactor: RedactContent<Req> | undefined,
): HttpLogResponse {
  const text = response.content ?? "";
  const bytes = response.contentBytes;
  const contentLength = response.contentLength ?? (bytes === undefined ? Buffer.byteLength(text, "utf8") : bytes.byteLength);
  let content: string | undefined = "";
  if (bytes !== undefined && contentLength > 0) content = undefined;
  else if (contentLength > 0) content = parameters.canLogContent(contentLength) ? redactContent(redactor, request, text) : undefined;
  return new HttpLogResponse({
    time: Date.now(),
    requestId: request.requestId,
    host: request.host,
    uri: pathOf(request.uri),
    user: logUser(request.user),
    statusCode: response.statusCode,
    contentType: response.contentType ?? "",
    contentEncoding: response.contentEncoding ?? "",
    contentLength,
    contentOmitted: content === undefined,
    content,
    slow: request.slowRequest,
  });
}

/** Builds the error entry of a 5xx on the request path, the exception rendered to strings. */
export function buildLogError(request: LoggedRequest, statusCode: number, taskId: string, error: unknown): HttpLogError {
  const rendered = error === undefined ? undefined : renderError(error);
  return new HttpLogError({
    time: Date.now(),
    requestId: request.requestId,
    taskId,
    host: request.host,
    uri: pathOf(request.uri),
    statusCode,
    tenant: request.user?.tenant ?? undefined,
    exceptionClassName: rendered?.className ?? "",
    exceptionMessage: rendered?.message ?? LogMessages.noException(statusCode),
    nestedExceptionClassName: rendered?.nestedClassName,
    nestedExceptionMessage: rendered?.nestedMessage,
  });
}
