/**
 * The log records (their fields: docs/logging.md). They are built on the request path from copies of what they describe,
 * so a consumer may read them after the request is gone; `toJson()` is meant for the consumer side.
 * JSON keys are the camelCase property names, like every other JSON that Tenon writes.
 *
 * Each record class declares each of its fields once, in the order its JSON writes them: the object its
 * constructor takes (`HttpLogRequestFields`, ...), the type of its JSON (`HttpLogRequestJson`, ...), its
 * `toJson()` and its JSON line are derived from that declaration by the rules of `RecordCodec`.
 */
import { LazyRecordCodec } from "./log-record-codec.js";

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

/** The data fields of a record class (its methods left out). */
type DataOf<R> = { readonly [K in keyof R as R[K] extends (...args: never[]) => unknown ? never : K]: R[K] };

/** Spells out an intersection as one object type. */
type Spelled<T> = { [K in keyof T]: T[K] };

/** The object a record's constructor takes: every field, the `Optional` ones may be absent. */
type FieldsOf<R, Optional extends keyof DataOf<R>> = Spelled<Omit<DataOf<R>, Optional> & Partial<Pick<DataOf<R>, Optional>>>;

/** The fields of a record that its JSON may leave out: ids ('' when none), values that may be undefined, `<name>Omitted` flags and what they omit. */
type LeftOutKeys<R> = {
  [K in keyof R]: K extends "requestId" | "taskId" ? K : undefined extends R[K] ? K : K extends `${string}Omitted` ? K : never;
}[keyof R];

/** A field's value as JSON: a `[name, value]` list as `{name, value}` objects, a flag as `true`. */
type JsonValueOf<K, V> = K extends `${string}Omitted` ? true : V extends HttpLogNameValues ? HttpLogNameValueJson[] : Exclude<V, undefined>;

/** The JSON of a slow request's response (`RecordCodec`: `slow` is written as its fields). */
interface SlowRequestJson {
  readonly durationMs?: number;
  readonly statements?: readonly HttpLogStatement[];
  readonly statementsOmitted?: number;
}

/** The JSON of a record, as `RecordCodec` writes it: `time` as ISO-8601 text, `Required` ids always. */
type JsonOf<R, Required extends keyof DataOf<R> = never, D = DataOf<R>> = Spelled<
  { readonly time: string } & {
    readonly [K in Exclude<keyof D, LeftOutKeys<D> | "time" | "slow"> | Required]: JsonValueOf<K, D[K]>;
  } & { readonly [K in Exclude<LeftOutKeys<D>, "slow" | Required>]?: JsonValueOf<K, D[K]> } & ("slow" extends keyof D
      ? SlowRequestJson
      : unknown)
>;

/** The user of a logged response: a copy of the `HttpUser` at the time the response was logged. */
export interface HttpLogUser {
  /** The user name. */
  readonly username: string;
  /** The user's areas. */
  readonly areas: readonly string[];
  /** The tenant, copied whole: never capped, redacted or passed to `onRedactContent`. */
  readonly tenant: string | undefined;
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

const requestCodec = new LazyRecordCodec();

/** A logged request, handed to `HttpLogWriter.writeRequest`. */
export class HttpLogRequest {
  /** When the entry was built, in milliseconds since the epoch. */
  readonly time!: number;
  /** The request's id (`X-Request-Id`: the caller's when well-formed, else generated), '' when none. */
  readonly requestId!: string;
  /** The Host header as sent, '' when absent. */
  readonly host!: string;
  /** The path as sent, without the query string (its values are in `params`, redacted). */
  readonly uri!: string;
  /** The method on the request line. */
  readonly methodType!: string;
  /** The size of the body in bytes, always known. */
  readonly contentLength!: number;
  /** True when the body was not captured: capture off, larger than the cap, not valid JSON, or refused by `onRedactContent`. */
  readonly contentOmitted!: boolean;
  /** The captured body (after `onRedactContent`), undefined when omitted. */
  readonly content!: string | undefined;
  /** How many query (and form) parameters the request had. */
  readonly paramsCount!: number;
  /** True when the parameters were not captured: more than `maxItemCount`, or a form body that was omitted. */
  readonly paramsOmitted!: boolean;
  /** The captured parameters, undefined when omitted. */
  readonly params!: HttpLogNameValues | undefined;
  /** How many headers the request had (first occurrences only). */
  readonly headersCount!: number;
  /** True when the headers were more than `maxItemCount` and not captured. */
  readonly headersOmitted!: boolean;
  /** The captured headers, undefined when omitted. */
  readonly headers!: HttpLogNameValues | undefined;
  /** The TCP peer. */
  readonly remoteIp!: string;
  /** The proxy-aware client address. */
  readonly clientIp!: string;

  /** @param fields every field of the record; `content`, `params` and `headers` are dropped when omitted. */
  constructor(fields: HttpLogRequestFields) {
    requestCodec.of(this).assign(this, fields);
  }

  /** The record as a JSON object: `contentLength` always, `contentOmitted: true` in place of `content` when omitted. */
  toJson(): HttpLogRequestJson {
    return requestCodec.of(this).json(this) as HttpLogRequestJson;
  }

  /** Same as `toJson()`, so that `JSON.stringify(record)` writes the same text. */
  toJSON(): HttpLogRequestJson {
    return this.toJson();
  }
}

/** The fields of an `HttpLogRequest`, as its constructor takes them (`requestId` may be absent). */
export type HttpLogRequestFields = FieldsOf<HttpLogRequest, "requestId">;

/** The JSON of an `HttpLogRequest`: `content` is absent when `contentOmitted` is present, likewise params and headers. */
export type HttpLogRequestJson = JsonOf<HttpLogRequest>;

const responseCodec = new LazyRecordCodec();

/** A logged response, handed to `HttpLogWriter.writeResponse`. */
export class HttpLogResponse {
  /** When the entry was built, in milliseconds since the epoch. */
  readonly time!: number;
  /** The request's id (`X-Request-Id`: the caller's when well-formed, else generated), '' when none. */
  readonly requestId!: string;
  /** The Host header of the request, '' when absent. */
  readonly host!: string;
  /** The path of the request as sent, without the query string. */
  readonly uri!: string;
  /** The authenticated user, undefined for an anonymous request. */
  readonly user!: HttpLogUser | undefined;
  /** The status code sent. */
  readonly statusCode!: number;
  /** The Content-Type sent, '' when none. */
  readonly contentType!: string;
  /** The Content-Encoding sent, '' when none. */
  readonly contentEncoding!: string;
  /** The size of the body in bytes, always known. */
  readonly contentLength!: number;
  /** True when the body was not captured: capture off, larger than the cap, or refused by `onRedactContent`. */
  readonly contentOmitted!: boolean;
  /** The captured body (after `onRedactContent`), undefined when omitted. */
  readonly content!: string | undefined;

  /** Set when the request took at least `HttpServer.slowRequestThreshold`: its duration and statements. */
  readonly slow!: HttpLogSlowRequest | undefined;

  /** @param fields every field of the record; `content` is dropped when omitted. */
  constructor(fields: HttpLogResponseFields) {
    responseCodec.of(this).assign(this, fields);
  }

  /** The record as a JSON object: `contentLength` always, `contentOmitted: true` in place of `content` when
   * omitted, and for a slow request its `durationMs`, `statements` and `statementsOmitted` (when above 0). */
  toJson(): HttpLogResponseJson {
    return responseCodec.of(this).json(this) as HttpLogResponseJson;
  }

  /** Same as `toJson()`, so that `JSON.stringify(record)` writes the same text. */
  toJSON(): HttpLogResponseJson {
    return this.toJson();
  }
}

/** The fields of an `HttpLogResponse`, as its constructor takes them (`requestId` and `slow` may be absent). */
export type HttpLogResponseFields = FieldsOf<HttpLogResponse, "requestId" | "slow">;

/** The JSON of an `HttpLogResponse`. */
export type HttpLogResponseJson = JsonOf<HttpLogResponse>;

const discardedCodec = new LazyRecordCodec([]);

/** How many entries of one host a full queue rejected since the last report. */
export class HttpLogDiscarded {
  /** When the report was made, in milliseconds since the epoch. */
  readonly time!: number;
  /** The host key: lower-cased, at most 64 characters of `a-z 0-9 . - : _`, or `<other>`. */
  readonly host!: string;
  /** The number of rejected entries. */
  readonly count!: number;

  /** @param host the host key. @param count the number of rejected entries. */
  constructor(host: string, count: number, time: number = Date.now()) {
    discardedCodec.of(this).assign(this, { time, host, count });
  }

  /** The record as a JSON object. */
  toJson(): HttpLogDiscardedJson {
    return discardedCodec.of(this).json(this) as HttpLogDiscardedJson;
  }

  /** Same as `toJson()`, so that `JSON.stringify(record)` writes the same text. */
  toJSON(): HttpLogDiscardedJson {
    return this.toJson();
  }
}

/** The JSON of an `HttpLogDiscarded`. */
export type HttpLogDiscardedJson = JsonOf<HttpLogDiscarded>;

const errorCodec = new LazyRecordCodec();

/** A response with status >= 500, handed to `HttpLogWriter.writeError`; the exception is already text. */
export class HttpLogError {
  /** When the entry was built, in milliseconds since the epoch. */
  readonly time!: number;
  /** The request's id (`X-Request-Id`: the caller's when well-formed, else generated), '' when none. */
  readonly requestId!: string;
  /** The task id that the 5xx response body carries. */
  readonly taskId!: string;
  /** The Host header of the request, '' when absent. */
  readonly host!: string;
  /** The path of the request as sent, without the query string. */
  readonly uri!: string;
  /** The status code sent. */
  readonly statusCode!: number;
  /** The tenant of the authenticated user, copied whole; undefined when there is no user. */
  readonly tenant!: string | undefined;
  /** The class of what was thrown ('' when nothing was: a handler that set the status itself). */
  readonly exceptionClassName!: string;
  /** The message of what was thrown. */
  readonly exceptionMessage!: string;
  /** The class of the error that was in flight when this one was thrown (its `cause`, or a `SuppressedError`'s `suppressed`). */
  readonly nestedExceptionClassName!: string | undefined;
  /** The message of that in-flight error. */
  readonly nestedExceptionMessage!: string | undefined;

  /** @param fields every field of the record; the nested pair is kept only with its class name. */
  constructor(fields: HttpLogErrorFields) {
    errorCodec.of(this).assign(this, {
      ...fields,
      nestedExceptionMessage: fields.nestedExceptionClassName === undefined ? undefined : (fields.nestedExceptionMessage ?? ""),
    });
  }

  /** The record as a JSON object: the nested pair only when there is one. */
  toJson(): HttpLogErrorJson {
    return errorCodec.of(this).json(this) as HttpLogErrorJson;
  }

  /** Same as `toJson()`, so that `JSON.stringify(record)` writes the same text. */
  toJSON(): HttpLogErrorJson {
    return this.toJson();
  }
}

/** The fields of an `HttpLogError`, as its constructor takes them (`requestId` may be absent). */
export type HttpLogErrorFields = FieldsOf<HttpLogError, "requestId">;

/** The JSON of an `HttpLogError`: the nested pair only when there is one. */
export type HttpLogErrorJson = JsonOf<HttpLogError, "taskId">;

const actionCodec = new LazyRecordCodec(["requestId", "taskId"]);

/** A free-text log line written inline; the default `writeDiscarded` and `writeError` produce one. */
export class HttpLogAction {
  /** When the action happened, in milliseconds since the epoch. */
  readonly time!: number;
  /** The request's id (`X-Request-Id`: the caller's when well-formed, else generated), '' when none. */
  readonly requestId!: string;
  /** The host concerned, '' when none. */
  readonly host!: string;
  /** The task id of a failed request, '' when none. */
  readonly taskId!: string;
  /** The message. */
  readonly message!: string;

  /**
   * @param host the host concerned ('' for none). @param message the text. @param taskId the task id of a failed
   * request. @param time when, in ms since the epoch. @param requestId the id of the request concerned ('' for none).
   */
  constructor(host: string, message: string, taskId = "", time: number = Date.now(), requestId = "") {
    actionCodec.of(this).assign(this, { time, requestId, host, taskId, message });
  }

  /** The record as a JSON object: the ids only when set. */
  toJson(): HttpLogActionJson {
    return actionCodec.of(this).json(this) as HttpLogActionJson;
  }

  /** Same as `toJson()`, so that `JSON.stringify(record)` writes the same text. */
  toJSON(): HttpLogActionJson {
    return this.toJson();
  }
}

/** The JSON of an `HttpLogAction`. */
export type HttpLogActionJson = JsonOf<HttpLogAction>;

/** The JSON line of a request or response record of exactly that class; undefined for a subclass (which may shape its JSON differently). @internal */
export function recordLine(record: HttpLogRequest | HttpLogResponse, log: "request" | "response"): string | undefined {
  if (record.constructor === HttpLogRequest) return requestCodec.of(record).line(record, log);
  if (record.constructor === HttpLogResponse) return responseCodec.of(record).line(record, log);
  return undefined;
}
