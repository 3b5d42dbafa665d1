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

function nameValues(parts: string[], values: HttpLogNameValues): void {
  parts.push("[");
  for (let i = 0; i < values.length; i++) {
    const [name, value] = values[i];
    parts.push(i === 0 ? '{"name":' : ',{"name":', quote(name), ',"value":', quote(value), "}");
  }
  parts.push("]");
}

// The lines are assembled from a list of parts joined once: one flat string per line. Built with `+` they
// were ropes of some sixty small strings that lived until the batch was written, which cost the young
// generation's collector more than the building did (measured on S6).

/** The line of an `HttpLogRequest`, or undefined for a subclass (which may shape its JSON differently). */
export function requestLine(record: HttpLogRequest): string | undefined {
  if (record.constructor !== HttpLogRequest) return undefined;
  const parts = ['{"log":"request","time":"', isoTime(record.time), '","host":', quote(record.host), ',"uri":', quote(record.uri)];
  parts.push(',"methodType":', quote(record.methodType), ',"contentLength":', text(record.contentLength));
  if (record.contentOmitted) parts.push(',"contentOmitted":true');
  else parts.push(',"content":', quote(record.content ?? ""));
  parts.push(',"paramsCount":', text(record.paramsCount));
  if (record.paramsOmitted) parts.push(',"paramsOmitted":true');
  else {
    parts.push(',"params":');
    nameValues(parts, record.params ?? []);
  }
  parts.push(',"headersCount":', text(record.headersCount));
  if (record.headersOmitted) parts.push(',"headersOmitted":true');
  else {
    parts.push(',"headers":');
    nameValues(parts, record.headers ?? []);
  }
  parts.push(',"remoteIp":', quote(record.remoteIp), ',"clientIp":', quote(record.clientIp), "}\n");
  return parts.join("");
}

/** The line of an `HttpLogResponse`, or undefined for a subclass. */
export function responseLine(record: HttpLogResponse): string | undefined {
  if (record.constructor !== HttpLogResponse) return undefined;
  const parts = ['{"log":"response","time":"', isoTime(record.time), '","host":', quote(record.host), ',"uri":', quote(record.uri)];
  if (record.user !== undefined) parts.push(',"user":', text(record.user));
  parts.push(',"statusCode":', text(record.statusCode), ',"contentType":', quote(record.contentType));
  parts.push(',"contentEncoding":', quote(record.contentEncoding), ',"contentLength":', text(record.contentLength));
  if (record.contentOmitted) parts.push(',"contentOmitted":true');
  else parts.push(',"content":', quote(record.content ?? ""));
  parts.push("}\n");
  return parts.join("");
}
