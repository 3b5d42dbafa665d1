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

// Each line is one concatenation (the cheapest way V8 has to build it, measured against a list of parts joined
// once); the writer copies it into its batch buffer at once, so the string never outlives the entry.

/** The line of an `HttpLogRequest`, or undefined for a subclass (which may shape its JSON differently). */
export function requestLine(record: HttpLogRequest): string | undefined {
  if (record.constructor !== HttpLogRequest) return undefined;
  return (
    '{"log":"request","time":"' +
    isoTime(record.time) +
    '","host":' +
    quote(record.host) +
    ',"uri":' +
    quote(record.uri) +
    ',"methodType":' +
    quote(record.methodType) +
    ',"contentLength":' +
    integer(record.contentLength) +
    (record.contentOmitted ? ',"contentOmitted":true' : ',"content":' + quote(record.content ?? "")) +
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
    '{"log":"response","time":"' +
    isoTime(record.time) +
    '","host":' +
    quote(record.host) +
    ',"uri":' +
    quote(record.uri) +
    (record.user === undefined ? "" : ',"user":' + JSON.stringify(record.user)) +
    ',"statusCode":' +
    integer(record.statusCode) +
    ',"contentType":' +
    quote(record.contentType) +
    ',"contentEncoding":' +
    quote(record.contentEncoding) +
    ',"contentLength":' +
    integer(record.contentLength) +
    (record.contentOmitted ? ',"contentOmitted":true' : ',"content":' + quote(record.content ?? "")) +
    "}\n"
  );
}
