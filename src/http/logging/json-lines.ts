import { type HttpLogRequest, type HttpLogResponse, recordLine } from "./http-log-records.js";

/**
 * The JSON-lines text of the two records written for every request, built as one string without the
 * intermediate objects of `toJson()` and a spread: the text is exactly `JSON.stringify({ log, ...record.toJson() })`
 * (tested field by field), at a fraction of the cost. Other records, and subclasses, take the general path.
 * Both follow the record's declared fields by the rules of `RecordCodec` (log-record-codec.ts).
 * @internal
 */

/** The line of an `HttpLogRequest`, or undefined for a subclass (which may shape its JSON differently). */
export function requestLine(record: HttpLogRequest): string | undefined {
  return recordLine(record, "request");
}

/** The line of an `HttpLogResponse`, or undefined for a subclass. */
export function responseLine(record: HttpLogResponse): string | undefined {
  return recordLine(record, "response");
}
