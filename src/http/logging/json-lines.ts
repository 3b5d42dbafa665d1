import { HttpLogRequest, HttpLogResponse, isoTime, type HttpLogNameValues } from "./http-log-records.js";

/**
 * The JSON-lines text of the two records written for every request, built as one string without the
 * intermediate objects of `toJson()` and a spread: the text is exactly `JSON.stringify({ log, ...record.toJson() })`
 * (tested field by field), at a fraction of the cost. Other records, and subclasses, take the general path.
 * @internal
 */

/**
 * `JSON.stringify` of a string. A string with nothing to escape (no quote, backslash, control character or
 * surrogate: every header and address a well-behaved client sends) is written between quotes as it is; the
 * scan stops at the first character that needs JSON's general path.
 */
function quote(value: string): string {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(value);
  }
  return '"' + value + '"';
}

/** `JSON.stringify` of a count or a status: always a finite integer, whose JSON is its decimal text. */
function integer(value: number): string {
  return Number.isSafeInteger(value) ? "" + value : JSON.stringify(value);
}

function nameValues(values: HttpLogNameValues): string {
  let text = "[";
  for (let i = 0; i < values.length; i++) {
    const pair = values[i];
    text += (i === 0 ? '{"name":' : ',{"name":') + quote(pair[0]) + ',"value":' + quote(pair[1]) + "}";
  }
  return text + "]";
}

/** The fields every line starts with: `{"log":<log>,"time":...,"requestId":...,"host":...,"uri":...`. */
function lineHead(log: string, record: HttpLogRequest | HttpLogResponse): string {
  return (
    '{"log":"' +
    log +
    '","time":"' +
    isoTime(record.time) +
    (record.requestId === "" ? '","host":' : '","requestId":' + quote(record.requestId) + ',"host":') +
    quote(record.host) +
    ',"uri":' +
    quote(record.uri)
  );
}

/** A slow request's fields (`HttpServer.slowRequestThreshold`): its duration and statements. */
function slowFields(slow: HttpLogResponse["slow"]): string {
  if (slow === undefined) return "";
  return (
    ',"durationMs":' +
    JSON.stringify(slow.durationMs) +
    ',"statements":' +
    JSON.stringify(slow.statements) +
    (slow.statementsOmitted > 0 ? ',"statementsOmitted":' + integer(slow.statementsOmitted) : "")
  );
}

/** The body's field: its text, or `contentOmitted` when it was not logged. */
function contentField(record: HttpLogRequest | HttpLogResponse): string {
  return record.contentOmitted ? ',"contentOmitted":true' : ',"content":' + quote(record.content ?? "");
}

// Each line is one concatenation (the cheapest way V8 has to build it, measured against a list of parts joined
// once); the writer copies it into its batch buffer at once, so the string never outlives the entry.

/** The line of an `HttpLogRequest`, or undefined for a subclass (which may shape its JSON differently). */
export function requestLine(record: HttpLogRequest): string | undefined {
  if (record.constructor !== HttpLogRequest) return undefined;
  return (
    lineHead("request", record) +
    ',"methodType":' +
    quote(record.methodType) +
    ',"contentLength":' +
    integer(record.contentLength) +
    contentField(record) +
    ',"paramsCount":' +
    integer(record.paramsCount) +
    (record.paramsOmitted ? ',"paramsOmitted":true' : ',"params":' + nameValues(record.params ?? [])) +
    ',"headersCount":' +
    integer(record.headersCount) +
    (record.headersOmitted ? ',"headersOmitted":true' : ',"headers":' + nameValues(record.headers ?? [])) +
    ',"remoteIp":' +
    quote(record.remoteIp) +
    ',"clientIp":' +
    quote(record.clientIp) +
    "}\n"
  );
}

/** The line of an `HttpLogResponse`, or undefined for a subclass. */
export function responseLine(record: HttpLogResponse): string | undefined {
  if (record.constructor !== HttpLogResponse) return undefined;
  return (
    lineHead("response", record) +
    (record.user === undefined ? "" : ',"user":' + JSON.stringify(record.user)) +
    ',"statusCode":' +
    integer(record.statusCode) +
    ',"contentType":' +
    quote(record.contentType) +
    ',"contentEncoding":' +
    quote(record.contentEncoding) +
    ',"contentLength":' +
    integer(record.contentLength) +
    contentField(record) +
    slowFields(record.slow) +
    "}\n"
  );
}
