import { HttpServiceUnavailableError } from "../exchange/http-errors.js";
import type { HttpResponse, HttpStreamFailure, HttpStreamSink } from "../exchange/http-response.js";
import { CrudMessages } from "./crud-messages.js";
import { csvHeader, csvRecord } from "./csv-text.js";
import { csvMediaType, type HttpRecordFormat, ndjsonMediaType } from "./stream-format.js";

/** One record of a streamed answer: a JSON object (an entity as select writes it, a group of an aggregate). */
export type HttpRecord = Readonly<Record<string, unknown>>;

/**
 * Where a streamed answer reads its records: a batch at a time, from a cursor on the database, so that an
 * answer of any size takes the memory of one batch. The select route's source is the entity reader's; an
 * aggregate's is its groups'.
 */
export interface HttpRecordSource {
  /** The members a CSV answer writes, in order (its header row): wire names. */
  readonly columns: readonly string[];
  /** The next records; none once every one was read. */
  next(): Promise<readonly HttpRecord[]>;
  /** Stops reading, stopping the statement on the server if it still runs; called once, at the end or when the client goes. Never rejects. */
  close(): Promise<void>;
}

/** The `Content-Type` of an NDJSON answer. */
export const ndjsonContentType = `${ndjsonMediaType}; charset=utf-8`;
/** The `Content-Type` of a CSV answer (RFC 4180, with its header row). */
export const csvContentType = `${csvMediaType}; charset=utf-8; header=present`;

/**
 * The last line of an NDJSON answer whose reading failed after its first byte: `{"error": <the error body>}`,
 * the body an error answer would have had (`{status, message}`, and a `taskId` for 500 and above). A complete
 * answer never ends with such a line: a data line is a record, and a record always has members of its own.
 */
export function ndjsonTrailer(failure: HttpStreamFailure): string {
  return `${JSON.stringify({ error: failure.body })}\n`;
}

/**
 * Answers `response` with the records of `source` streamed as NDJSON (one JSON object a line) or CSV (RFC 4180,
 * a header row of `columns`). The first batch is read before the answer starts, so that a failure to open the
 * read (a bad filter, a timeout, the database away) is answered with its status as usual. After that the
 * records go out as the client takes them (a batch is read only when the previous one left the server's
 * buffers), and a failure ends the answer so that the client sees it: NDJSON with a trailer line
 * (`ndjsonTrailer`), CSV with a cut connection (a chunked body without its last chunk). A client that goes
 * away, or a server that stops, closes the source, which stops the statement on the database.
 */
export async function answerRecordStream(response: HttpResponse, format: HttpRecordFormat, source: HttpRecordSource): Promise<void> {
  let first: readonly HttpRecord[];
  try {
    first = await source.next();
  } catch (error) {
    await source.close();
    throw error;
  }
  response.contentType = format === "csv" ? csvContentType : ndjsonContentType;
  response.stream((sink) => sendRecords(sink, format, source, first), { onFailure: format === "csv" ? "abort" : ndjsonTrailer });
}

async function sendRecords(
  sink: HttpStreamSink,
  format: HttpRecordFormat,
  source: HttpRecordSource,
  first: readonly HttpRecord[],
): Promise<void> {
  const signal = sink.signal;
  // A read that waits on the database when the client goes is stopped at once (its statement cancelled).
  const stop = (): void => void source.close();
  signal.addEventListener("abort", stop, { once: true });
  try {
    const columns = source.columns;
    let batch = first;
    let text = format === "csv" ? csvHeader(columns) : "";
    for (;;) {
      for (const record of batch) text += format === "csv" ? csvRecord(columns, record) : `${JSON.stringify(record)}\n`;
      if (text !== "" && !sink.write(text)) await sink.drained();
      // One turn of the event loop a batch: a source that answers at once (SQLite's statement, stepped in this
      // thread) and a client whose socket takes every write would otherwise keep this loop in promise jobs and
      // next ticks from the first batch to the last, and no other request, timer or I/O would run meanwhile.
      await nextTurn();
      text = "";
      if (signal.aborted) throw new HttpServiceUnavailableError(CrudMessages.streamStopped);
      if (batch.length === 0) return;
      batch = await source.next();
      // A source closed by the abort answers no more records: that is not the end of the answer.
      if (signal.aborted) throw new HttpServiceUnavailableError(CrudMessages.streamStopped);
    }
  } finally {
    signal.removeEventListener("abort", stop);
    await source.close();
  }
}

/** Resolves on the event loop's next turn (after its I/O and timers). */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
