/**
 * The log records (their fields: docs/logging.md). They are built on the request path from copies of what they describe,
 * so a consumer may read them after the request is gone; `toJson()` is meant for the consumer side.
 * JSON keys are the camelCase property names, like every other JSON that Tenon writes.
 */
import { formatIsoTime } from "../../values/iso-date.js";

/** A captured list of headers or parameters: `[name, value]` pairs in arrival order, redacted values replaced. */
export type HttpLogNameValues = readonly (readonly [name: string, value: string])[];

/** A `[name, value]` pair as `toJson()` writes it. */
export interface HttpLogNameValueJson {
  /** The header or parameter name, as sent. */
  readonly name: string;
  /** The value, or `<redacted>`. */
  readonly value: string;
}

/** The user of a logged response: a copy of the `HttpUser` at the time the response was logged. */
export interface HttpLogUser {
  /** The user name. */
  readonly username: string;
  /** The user's areas. */
  readonly areas: readonly string[];
  /** The tenant, copied whole: never capped, redacted or passed to `onRedactContent`. */
  readonly tenant: string | undefined;
}

let lastTime = Number.NaN;
let lastIso = "";

/**
 * `new Date(time).toISOString()`, remembered for the last millisecond asked: a busy log formats the same
 * millisecond many times. @internal
 */
export function isoTime(time: number): string {
  if (time !== lastTime) {
    lastIso = formatIsoTime(time);
    lastTime = time;
  }
  return lastIso;
}

function nameValuesJson(values: HttpLogNameValues): HttpLogNameValueJson[] {
  return values.map(([name, value]) => ({ name, value }));
}

/** The fields of an `HttpLogRequest`. */
export interface HttpLogRequestFields {
  readonly time: number;
  /** The request id (`X-Request-Id`), '' or absent when none. */
  readonly requestId?: string;
  readonly host: string;
  readonly uri: string;
  readonly methodType: string;
  readonly contentLength: number;
  readonly contentOmitted: boolean;
  readonly content: string | undefined;
  readonly paramsCount: number;
  readonly paramsOmitted: boolean;
  readonly params: HttpLogNameValues | undefined;
  readonly headersCount: number;
  readonly headersOmitted: boolean;
  readonly headers: HttpLogNameValues | undefined;
  readonly remoteIp: string;
  readonly clientIp: string;
}

/** The JSON of an `HttpLogRequest`: `content` is absent when `contentOmitted` is present, likewise params and headers. */
export interface HttpLogRequestJson {
  readonly time: string;
  readonly requestId?: string;
  readonly host: string;
  readonly uri: string;
  readonly methodType: string;
  readonly contentLength: number;
  readonly contentOmitted?: true;
  readonly content?: string;
  readonly paramsCount: number;
  readonly paramsOmitted?: true;
  readonly params?: HttpLogNameValueJson[];
  readonly headersCount: number;
  readonly headersOmitted?: true;
  readonly headers?: HttpLogNameValueJson[];
  readonly remoteIp: string;
  readonly clientIp: string;
}

/** A logged request, handed to `HttpLogWriter.writeRequest`. */
export class HttpLogRequest implements HttpLogRequestFields {
  /** When the entry was built, in milliseconds since the epoch. */
  readonly time: number;
  /** The request's id (`X-Request-Id`: the caller's when well-formed, else generated), '' when none. */
  readonly requestId: string;
  /** The Host header as sent, '' when absent. */
  readonly host: string;
  /** The path as sent, without the query string (its values are in `params`, redacted). */
  readonly uri: string;
  /** The method on the request line. */
  readonly methodType: string;
  /** The size of the body in bytes, always known. */
  readonly contentLength: number;
  /** True when the body was not captured: capture off, larger than the cap, not valid JSON, or refused by `onRedactContent`. */
  readonly contentOmitted: boolean;
  /** The captured body (after `onRedactContent`), undefined when omitted. */
  readonly content: string | undefined;
  /** How many query (and form) parameters the request had. */
  readonly paramsCount: number;
  /** True when the parameters were not captured: more than `maxItemCount`, or a form body that was omitted. */
  readonly paramsOmitted: boolean;
  /** The captured parameters, undefined when omitted. */
  readonly params: HttpLogNameValues | undefined;
  /** How many headers the request had (first occurrences only). */
  readonly headersCount: number;
  /** True when the headers were more than `maxItemCount` and not captured. */
  readonly headersOmitted: boolean;
  /** The captured headers, undefined when omitted. */
  readonly headers: HttpLogNameValues | undefined;
  /** The TCP peer. */
  readonly remoteIp: string;
  /** The proxy-aware client address. */
  readonly clientIp: string;

  /** @param fields every field of the record. */
  constructor(fields: HttpLogRequestFields) {
    this.time = fields.time;
    this.requestId = fields.requestId ?? "";
    this.host = fields.host;
    this.uri = fields.uri;
    this.methodType = fields.methodType;
    this.contentLength = fields.contentLength;
    this.contentOmitted = fields.contentOmitted;
    this.content = fields.contentOmitted ? undefined : fields.content;
    this.paramsCount = fields.paramsCount;
    this.paramsOmitted = fields.paramsOmitted;
    this.params = fields.paramsOmitted ? undefined : fields.params;
    this.headersCount = fields.headersCount;
    this.headersOmitted = fields.headersOmitted;
    this.headers = fields.headersOmitted ? undefined : fields.headers;
    this.remoteIp = fields.remoteIp;
    this.clientIp = fields.clientIp;
  }

  /** The record as a JSON object: `contentLength` always, `contentOmitted: true` in place of `content` when omitted. */
  toJson(): HttpLogRequestJson {
    return {
      time: isoTime(this.time),
      ...(this.requestId === "" ? {} : { requestId: this.requestId }),
      host: this.host,
      uri: this.uri,
      methodType: this.methodType,
      contentLength: this.contentLength,
      ...(this.contentOmitted ? { contentOmitted: true as const } : { content: this.content ?? "" }),
      paramsCount: this.paramsCount,
      ...(this.paramsOmitted ? { paramsOmitted: true as const } : { params: nameValuesJson(this.params ?? []) }),
      headersCount: this.headersCount,
      ...(this.headersOmitted ? { headersOmitted: true as const } : { headers: nameValuesJson(this.headers ?? []) }),
      remoteIp: this.remoteIp,
      clientIp: this.clientIp,
    };
  }

  /** Same as `toJson()`, so that `JSON.stringify(record)` writes the same text. */
  toJSON(): HttpLogRequestJson {
    return this.toJson();
  }
}

/** One statement of a slow request's response record (`HttpServer.slowRequestThreshold`). */
export interface HttpLogStatement {
  /** The statement text, with placeholders: parameter values are never logged. */
  readonly sql: string;
  /** How long it took, in milliseconds. */
  readonly durationMs: number;
  /** True when it failed. */
  readonly failed: boolean;
}

/** What the response record of a request slower than the threshold carries. */
export interface HttpLogSlowRequest {
  /** The request's time from its body read to its answer written, in milliseconds. */
  readonly durationMs: number;
  /** Its statements in the order run (at most 100). */
  readonly statements: readonly HttpLogStatement[];
  /** The statements beyond those listed. */
  readonly statementsOmitted: number;
}

/** The fields of an `HttpLogResponse`. */
export interface HttpLogResponseFields {
  readonly time: number;
  /** The request id (`X-Request-Id`), '' or absent when none. */
  readonly requestId?: string;
  /** Set for a request slower than the slow request threshold. */
  readonly slow?: HttpLogSlowRequest | undefined;
  readonly host: string;
  readonly uri: string;
  readonly user: HttpLogUser | undefined;
  readonly statusCode: number;
  readonly contentType: string;
  readonly contentEncoding: string;
  readonly contentLength: number;
  readonly contentOmitted: boolean;
  readonly content: string | undefined;
}

/** The JSON of an `HttpLogResponse`. */
export interface HttpLogResponseJson {
  readonly time: string;
  readonly requestId?: string;
  readonly host: string;
  readonly uri: string;
  readonly user?: HttpLogUser;
  readonly statusCode: number;
  readonly contentType: string;
  readonly contentEncoding: string;
  readonly contentLength: number;
  readonly contentOmitted?: true;
  readonly content?: string;
  readonly durationMs?: number;
  readonly statements?: readonly HttpLogStatement[];
  readonly statementsOmitted?: number;
}

/** A logged response, handed to `HttpLogWriter.writeResponse`. */
export class HttpLogResponse implements HttpLogResponseFields {
  /** Set when the request took at least `HttpServer.slowRequestThreshold`: its duration and statements. */
  readonly slow: HttpLogSlowRequest | undefined;
  /** When the entry was built, in milliseconds since the epoch. */
  readonly time: number;
  /** The request's id (`X-Request-Id`: the caller's when well-formed, else generated), '' when none. */
  readonly requestId: string;
  /** The Host header of the request, '' when absent. */
  readonly host: string;
  /** The path of the request as sent, without the query string. */
  readonly uri: string;
  /** The authenticated user, undefined for an anonymous request. */
  readonly user: HttpLogUser | undefined;
  /** The status code sent. */
  readonly statusCode: number;
  /** The Content-Type sent, '' when none. */
  readonly contentType: string;
  /** The Content-Encoding sent, '' when none. */
  readonly contentEncoding: string;
  /** The size of the body in bytes, always known. */
  readonly contentLength: number;
  /** True when the body was not captured: capture off, larger than the cap, or refused by `onRedactContent`. */
  readonly contentOmitted: boolean;
  /** The captured body (after `onRedactContent`), undefined when omitted. */
  readonly content: string | undefined;

  /** @param fields every field of the record. */
  constructor(fields: HttpLogResponseFields) {
    this.time = fields.time;
    this.requestId = fields.requestId ?? "";
    this.slow = fields.slow;
    this.host = fields.host;
    this.uri = fields.uri;
    this.user = fields.user;
    this.statusCode = fields.statusCode;
    this.contentType = fields.contentType;
    this.contentEncoding = fields.contentEncoding;
    this.contentLength = fields.contentLength;
    this.contentOmitted = fields.contentOmitted;
    this.content = fields.contentOmitted ? undefined : fields.content;
  }

  /** The record as a JSON object: `contentLength` always, `contentOmitted: true` in place of `content` when omitted. */
  toJson(): HttpLogResponseJson {
    return {
      time: isoTime(this.time),
      ...(this.requestId === "" ? {} : { requestId: this.requestId }),
      host: this.host,
      uri: this.uri,
      ...(this.user === undefined ? {} : { user: this.user }),
      statusCode: this.statusCode,
      contentType: this.contentType,
      contentEncoding: this.contentEncoding,
      contentLength: this.contentLength,
      ...(this.contentOmitted ? { contentOmitted: true as const } : { content: this.content ?? "" }),
      ...(this.slow === undefined
        ? {}
        : {
            durationMs: this.slow.durationMs,
            statements: this.slow.statements,
            ...(this.slow.statementsOmitted > 0 ? { statementsOmitted: this.slow.statementsOmitted } : {}),
          }),
    };
  }

  /** Same as `toJson()`, so that `JSON.stringify(record)` writes the same text. */
  toJSON(): HttpLogResponseJson {
    return this.toJson();
  }
}

/** The JSON of an `HttpLogDiscarded`. */
export interface HttpLogDiscardedJson {
  readonly time: string;
  readonly host: string;
  readonly count: number;
}

/** How many entries of one host a full queue rejected since the last report. */
export class HttpLogDiscarded {
  /** When the report was made, in milliseconds since the epoch. */
  readonly time: number;
  /** The host key: lower-cased, at most 64 characters of `a-z 0-9 . - : _`, or `<other>`. */
  readonly host: string;
  /** The number of rejected entries. */
  readonly count: number;

  /** @param host the host key. @param count the number of rejected entries. */
  constructor(host: string, count: number, time: number = Date.now()) {
    this.time = time;
    this.host = host;
    this.count = count;
  }

  /** The record as a JSON object. */
  toJson(): HttpLogDiscardedJson {
    return { time: isoTime(this.time), host: this.host, count: this.count };
  }

  /** Same as `toJson()`. */
  toJSON(): HttpLogDiscardedJson {
    return this.toJson();
  }
}

/** The fields of an `HttpLogError`. */
export interface HttpLogErrorFields {
  readonly time: number;
  /** The request id (`X-Request-Id`), '' or absent when none. */
  readonly requestId?: string;
  readonly taskId: string;
  readonly host: string;
  readonly uri: string;
  readonly statusCode: number;
  readonly tenant: string | undefined;
  readonly exceptionClassName: string;
  readonly exceptionMessage: string;
  readonly nestedExceptionClassName: string | undefined;
  readonly nestedExceptionMessage: string | undefined;
}

/** The JSON of an `HttpLogError`: the nested pair only when there is one. */
export interface HttpLogErrorJson {
  readonly time: string;
  readonly requestId?: string;
  readonly taskId: string;
  readonly host: string;
  readonly uri: string;
  readonly statusCode: number;
  readonly tenant?: string;
  readonly exceptionClassName: string;
  readonly exceptionMessage: string;
  readonly nestedExceptionClassName?: string;
  readonly nestedExceptionMessage?: string;
}

/** A response with status >= 500, handed to `HttpLogWriter.writeError`; the exception is already text. */
export class HttpLogError implements HttpLogErrorFields {
  /** When the entry was built, in milliseconds since the epoch. */
  readonly time: number;
  /** The request's id (`X-Request-Id`: the caller's when well-formed, else generated), '' when none. */
  readonly requestId: string;
  /** The task id that the 5xx response body carries. */
  readonly taskId: string;
  /** The Host header of the request, '' when absent. */
  readonly host: string;
  /** The path of the request as sent, without the query string. */
  readonly uri: string;
  /** The status code sent. */
  readonly statusCode: number;
  /** The tenant of the authenticated user, copied whole; undefined when there is no user. */
  readonly tenant: string | undefined;
  /** The class of what was thrown ('' when nothing was: a handler that set the status itself). */
  readonly exceptionClassName: string;
  /** The message of what was thrown. */
  readonly exceptionMessage: string;
  /** The class of the error that was in flight when this one was thrown (its `cause`, or a `SuppressedError`'s `suppressed`). */
  readonly nestedExceptionClassName: string | undefined;
  /** The message of that in-flight error. */
  readonly nestedExceptionMessage: string | undefined;

  /** @param fields every field of the record. */
  constructor(fields: HttpLogErrorFields) {
    this.time = fields.time;
    this.requestId = fields.requestId ?? "";
    this.taskId = fields.taskId;
    this.host = fields.host;
    this.uri = fields.uri;
    this.statusCode = fields.statusCode;
    this.tenant = fields.tenant;
    this.exceptionClassName = fields.exceptionClassName;
    this.exceptionMessage = fields.exceptionMessage;
    this.nestedExceptionClassName = fields.nestedExceptionClassName;
    this.nestedExceptionMessage = fields.nestedExceptionMessage;
  }

  /** The record as a JSON object. */
  toJson(): HttpLogErrorJson {
    return {
      time: isoTime(this.time),
      ...(this.requestId === "" ? {} : { requestId: this.requestId }),
      taskId: this.taskId,
      host: this.host,
      uri: this.uri,
      statusCode: this.statusCode,
      ...(this.tenant === undefined ? {} : { tenant: this.tenant }),
      exceptionClassName: this.exceptionClassName,
      exceptionMessage: this.exceptionMessage,
      ...(this.nestedExceptionClassName === undefined
        ? {}
        : { nestedExceptionClassName: this.nestedExceptionClassName, nestedExceptionMessage: this.nestedExceptionMessage ?? "" }),
    };
  }

  /** Same as `toJson()`. */
  toJSON(): HttpLogErrorJson {
    return this.toJson();
  }
}

/** The JSON of an `HttpLogAction`. */
export interface HttpLogActionJson {
  readonly time: string;
  readonly requestId?: string;
  readonly host: string;
  readonly taskId?: string;
  readonly message: string;
}

/** A free-text log line written inline; the default `writeDiscarded` and `writeError` produce one. */
export class HttpLogAction {
  /** When the action happened, in milliseconds since the epoch. */
  readonly time: number;
  /** The request's id (`X-Request-Id`: the caller's when well-formed, else generated), '' when none. */
  readonly requestId: string;
  /** The host concerned, '' when none. */
  readonly host: string;
  /** The message. */
  readonly message: string;
  /** The task id of a failed request, '' when none. */
  readonly taskId: string;

  /**
   * @param host the host concerned ('' for none). @param message the text. @param taskId the task id of a failed
   * request. @param time when, in ms since the epoch. @param requestId the id of the request concerned ('' for none).
   */
  constructor(host: string, message: string, taskId = "", time: number = Date.now(), requestId = "") {
    this.time = time;
    this.requestId = requestId;
    this.host = host;
    this.message = message;
    this.taskId = taskId;
  }

  /** The record as a JSON object. */
  toJson(): HttpLogActionJson {
    return {
      time: isoTime(this.time),
      ...(this.requestId === "" ? {} : { requestId: this.requestId }),
      host: this.host,
      ...(this.taskId === "" ? {} : { taskId: this.taskId }),
      message: this.message,
    };
  }

  /** Same as `toJson()`. */
  toJSON(): HttpLogActionJson {
    return this.toJson();
  }
}
