import { HttpLogRequest, HttpLogResponse, isoTime, type HttpLogNameValues } from "./http-log-records.js";

/**
 * The JSON-lines text of the two records written for every request, built as one string without the
 * intermediate objects of `toJson()` and a spread: the text is exactly `JSON.stringify({ log, ...record.toJson() })`
 * (tested field by field), at a fraction of the cost. Other records, and subclasses, take the general path.
 * @internal
 */

const text = JSON.stringify;
/** A string that JSON writes as itself between quotes: no quote, backslash, control character or surrogate. */
const plainString = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/** `JSON.stringify` of a string, without its general machinery for the common plain string (half the time). */
function quote(value: string): string {
  return typeof value === "string" && plainString.test(value) ? `"${value}"` : text(value);
}

function nameValues(values: HttpLogNameValues): string {
  let out = "[";
  for (let i = 0; i < values.length; i++) {
    const [name, value] = values[i];
    out += `${i === 0 ? "" : ","}{"name":${quote(name)},"value":${quote(value)}}`;
  }
  return out + "]";
}

/** The line of an `HttpLogRequest`, or undefined for a subclass (which may shape its JSON differently). */
export function requestLine(record: HttpLogRequest): string | undefined {
  if (record.constructor !== HttpLogRequest) return undefined;
  let out = `{"log":"request","time":"${isoTime(record.time)}","host":${quote(record.host)},"uri":${quote(record.uri)},"methodType":${quote(record.methodType)},"contentLength":${text(record.contentLength)}`;
  out += record.contentOmitted ? `,"contentOmitted":true` : `,"content":${quote(record.content ?? "")}`;
  out += `,"paramsCount":${text(record.paramsCount)}`;
  out += record.paramsOmitted ? `,"paramsOmitted":true` : `,"params":${nameValues(record.params ?? [])}`;
  out += `,"headersCount":${text(record.headersCount)}`;
  out += record.headersOmitted ? `,"headersOmitted":true` : `,"headers":${nameValues(record.headers ?? [])}`;
  return `${out},"remoteIp":${quote(record.remoteIp)},"clientIp":${quote(record.clientIp)}}\n`;
}

/** The line of an `HttpLogResponse`, or undefined for a subclass. */
export function responseLine(record: HttpLogResponse): string | undefined {
  if (record.constructor !== HttpLogResponse) return undefined;
  let out = `{"log":"response","time":"${isoTime(record.time)}","host":${quote(record.host)},"uri":${quote(record.uri)}`;
  if (record.user !== undefined) out += `,"user":${text(record.user)}`;
  out += `,"statusCode":${text(record.statusCode)},"contentType":${quote(record.contentType)},"contentEncoding":${quote(record.contentEncoding)},"contentLength":${text(record.contentLength)}`;
  out += record.contentOmitted ? `,"contentOmitted":true` : `,"content":${quote(record.content ?? "")}`;
  return `${out}}\n`;
}
