import { open, type FileHandle } from "node:fs/promises";
import type { HttpLogAction, HttpLogDiscarded, HttpLogError, HttpLogRequest, HttpLogResponse } from "./http-log-records.js";
import { HttpLogWriter } from "./http-log-writer.js";

/** The kind of a JSON-lines log entry, written as its `"log"` key. */
export type JsonLinesLogKind = "action" | "request" | "response" | "discarded" | "error";

/** Lines buffered before a write call waits for the file (the consumer then slows down instead of piling up memory). */
const MAX_PENDING_LINES = 1000;

/**
 * A log writer that appends one JSON object per line, `{"log": "<kind>", ...record.toJson()}`, to a file or to
 * standard output. The file is opened on the first write, not in the constructor, and opened again on the next
 * write after a failure, so a destination missing at start-up (a directory not created yet) is survived; the
 * lines of a failed write are dropped, like any writer failure.
 *
 * Lines are gathered and written in batches, one file write per batch rather than per entry, so a busy server
 * pays for a few system calls per event-loop turn; a write call returns a Promise only when the batch is full.
 * `close()` (the server's `stop()`) writes what is pending.
 *
 * Configure the destination with the static `path` (undefined for standard output), on this class or on a
 * subclass: `class AppLog extends JsonLinesLogWriter { static override path = "data/http.log"; }`.
 */
export class JsonLinesLogWriter extends HttpLogWriter {
  /** The file that instances of this class append to; undefined writes to standard output. */
  static path: string | undefined = undefined;

  #file: FileHandle | undefined;
  #pending: string[] = [];
  #flushing: Promise<void> | undefined;

  /** The destination of this instance: the static `path` of its class. */
  get path(): string | undefined {
    return (this.constructor as typeof JsonLinesLogWriter).path;
  }

  /** Appends an action line. */
  override writeAction(action: HttpLogAction): Promise<void> | void {
    return this.writeLine("action", action.toJson());
  }

  /** Appends a request line. */
  override writeRequest(request: HttpLogRequest): Promise<void> | void {
    return this.writeLine("request", request.toJson());
  }

  /** Appends a response line. */
  override writeResponse(response: HttpLogResponse): Promise<void> | void {
    return this.writeLine("response", response.toJson());
  }

  /** Appends a discard report line. */
  override writeDiscarded(discarded: HttpLogDiscarded): Promise<void> | void {
    return this.writeLine("discarded", discarded.toJson());
  }

  /** Appends an error line. */
  override writeError(error: HttpLogError): Promise<void> | void {
    return this.writeLine("error", error.toJson());
  }

  /** Resolves when every line written so far has reached the destination (or was dropped by a failure). */
  async flush(): Promise<void> {
    while (this.#flushing !== undefined) await this.#flushing;
  }

  /** Writes what is pending and closes the file, if one is open. */
  override async close(): Promise<void> {
    await this.flush();
    const file = this.#file;
    this.#file = undefined;
    await file?.close();
  }

  /** Queues `{"log": kind, ...json}` and a newline for the next batch; subclasses may call it for lines of their own. */
  protected writeLine(kind: JsonLinesLogKind, json: object): Promise<void> | void {
    this.#pending.push(JSON.stringify({ log: kind, ...json }) + "\n");
    this.#flushing ??= this.#flushLoop();
    if (this.#pending.length >= MAX_PENDING_LINES) return this.#flushing;
  }

  async #flushLoop(): Promise<void> {
    try {
      // let the other entries of this turn join the batch
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (this.#pending.length > 0) {
        const batch = this.#pending.join("");
        this.#pending = [];
        try {
          await this.#writeBatch(batch);
        } catch {
          // The destination failed: this batch is lost; the next one opens the file again.
          const file = this.#file;
          this.#file = undefined;
          await file?.close().catch(() => undefined);
        }
      }
    } finally {
      this.#flushing = undefined;
    }
  }

  async #writeBatch(batch: string): Promise<void> {
    const path = this.path;
    if (path === undefined) {
      await new Promise<void>((resolve, reject) => process.stdout.write(batch, (error) => (error ? reject(error) : resolve())));
      return;
    }
    this.#file ??= await open(path, "a");
    await this.#file.write(batch);
  }
}
