import { Buffer } from "node:buffer";
import { close, closeSync, fstatSync, open, openSync, statSync, write, writevSync } from "node:fs";
import { promisify } from "node:util";
import type { HttpLogAction, HttpLogDiscarded, HttpLogError, HttpLogRequest, HttpLogResponse } from "./http-log-records.js";
import { HttpLogWriter } from "./http-log-writer.js";
import { requestLine, responseLine } from "./json-lines.js";

/** The kind of a JSON-lines log entry, written as its `"log"` key. */
export type JsonLinesLogKind = "action" | "request" | "response" | "discarded" | "error";

/** Lines buffered before a write call waits for the file (the consumer then slows down instead of piling up memory). */
const MAX_PENDING_LINES = 1000;

/** The size of a batch buffer: a few hundred lines, so that one 5 ms batch of a busy server usually fits in one. */
const CHUNK_BYTES = 64 * 1024;

/**
 * How often, at most, a batch checks that the path still names the open file, in ms: a log file removed or
 * replaced (by hand, or by a rotation that moves it away) is then opened anew within about a second instead
 * of receiving lines that nobody will ever read.
 */
const REOPEN_CHECK_MS = 1000;

/** How long the first line of a batch waits for others, in ms: a busy server then makes a few hundred writes a second, not one per event-loop turn. */
const BATCH_WINDOW_MS = 5;

const openAsync = promisify(open);
const writeAsync = promisify(write);
const closeAsync = promisify(close);

/**
 * A log writer that appends one JSON object per line, `{"log": "<kind>", ...record.toJson()}`, to a file or to
 * standard output. The file is opened on the first write, not in the constructor, and opened again on the next
 * write after a failure, so a destination missing at start-up (a directory not created yet) is survived; the
 * lines of a failed write are dropped, like any writer failure. A file removed or replaced while the server
 * runs is noticed within a second (one `stat` at most every second) and the path opened anew.
 *
 * Lines are gathered for 5 ms and written in batches, one file write per batch rather than per entry, so a busy
 * server pays for a few hundred system calls a second whatever its request rate; a write call returns a
 * Promise only when the batch is full. `close()` (the server's `stop()`) writes what is pending. Each line is
 * encoded into the batch's buffer as soon as it is written, so its string is garbage at once instead of
 * surviving until the batch goes out (and the synchronous mode reuses one buffer from batch to batch).
 *
 * A batch goes to the file in one synchronous `write` call (`synchronous`, the default): on a local disk that
 * is a copy into the page cache, cheaper than a round trip through libuv's thread pool and its wake-ups. Set
 * `synchronous = false` for a destination that can stall, such as a network file system, so that the event
 * loop never waits on it.
 *
 * Configure the destination with the static `path` (undefined for standard output), on this class or on a
 * subclass: `class AppLog extends JsonLinesLogWriter { static override path = "data/http.log"; }`.
 */
export class JsonLinesLogWriter extends HttpLogWriter {
  /** The file that instances of this class append to; undefined writes to standard output. */
  static path: string | undefined = undefined;
  /** Write each batch to the file with a synchronous call (default true); false writes through the thread pool. */
  static synchronous = true;

  #file: number | undefined;
  /** Filled buffers of the batch, before the one being filled. */
  #full: Buffer[] = [];
  /** The buffer being filled, and how many of its bytes hold lines. */
  #chunk: Buffer | undefined;
  #used = 0;
  #pendingLines = 0;
  #flushing: Promise<void> | undefined;
  /** When the path was last checked against the open file (see REOPEN_CHECK_MS). */
  #checkedAt = 0;

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
    const line = this.#overridesWriteLine() ? undefined : requestLine(request);
    return line === undefined ? this.writeLine("request", request.toJson()) : this.#append(line);
  }

  /** Appends a response line. */
  override writeResponse(response: HttpLogResponse): Promise<void> | void {
    const line = this.#overridesWriteLine() ? undefined : responseLine(response);
    return line === undefined ? this.writeLine("response", response.toJson()) : this.#append(line);
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
    await this.#closeFile();
  }

  /** Queues `{"log": kind, ...json}` and a newline for the next batch; subclasses may call it for lines of their own. */
  protected writeLine(kind: JsonLinesLogKind, json: object): Promise<void> | void {
    return this.#append(JSON.stringify({ log: kind, ...json }) + "\n");
  }

  /** A subclass that shapes its lines in `writeLine` gets every line through it. */
  #overridesWriteLine(): boolean {
    return this.writeLine !== JsonLinesLogWriter.prototype.writeLine;
  }

  #append(line: string): Promise<void> | void {
    // a UTF-16 code unit takes at most 3 bytes in UTF-8
    const room = line.length * 3;
    let chunk = this.#chunk;
    if (chunk === undefined || chunk.length - this.#used < room) {
      if (chunk !== undefined && this.#used > 0) this.#full.push(chunk.subarray(0, this.#used));
      chunk = this.#chunk = Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, room));
      this.#used = 0;
    }
    this.#used += chunk.write(line, this.#used);
    this.#pendingLines++;
    this.#flushing ??= this.#flushLoop();
    if (this.#pendingLines >= MAX_PENDING_LINES) return this.#flushing;
  }

  /** Takes the batch written so far; `reuse` keeps the current buffer for the next batch (its bytes must be written before anything else is appended). */
  #takeBatch(reuse: boolean): Buffer[] {
    const batch = this.#full;
    if (this.#chunk !== undefined && this.#used > 0) batch.push(this.#chunk.subarray(0, this.#used));
    this.#full = [];
    this.#used = 0;
    this.#pendingLines = 0;
    if (!reuse) this.#chunk = undefined;
    return batch;
  }

  async #flushLoop(): Promise<void> {
    try {
      // let the entries of the next few milliseconds join the batch
      await new Promise<void>((resolve) => setTimeout(resolve, BATCH_WINDOW_MS));
      while (this.#pendingLines > 0) {
        try {
          await this.#writeBatch();
        } catch {
          // The destination failed: this batch is lost; the next one opens the file again.
          await this.#closeFile().catch(() => undefined);
        }
      }
    } finally {
      this.#flushing = undefined;
    }
  }

  async #writeBatch(): Promise<void> {
    const path = this.path;
    if (path === undefined) {
      const batch = Buffer.concat(this.#takeBatch(false));
      await new Promise<void>((resolve, reject) => process.stdout.write(batch, (error) => (error ? reject(error) : resolve())));
      return;
    }
    this.#checkStillThere(path);
    if ((this.constructor as typeof JsonLinesLogWriter).synchronous) {
      // written before this call returns, so the buffer can take the next batch
      const batch = this.#takeBatch(true);
      const file = (this.#file ??= openSync(path, "a"));
      writeAllSync(file, batch);
      return;
    }
    const batch = Buffer.concat(this.#takeBatch(false));
    const file = (this.#file ??= await openAsync(path, "a"));
    for (let offset = 0; offset < batch.length; )
      offset += (await writeAsync(file, batch, offset, batch.length - offset, null)).bytesWritten;
  }

  /**
   * Forgets the open file when `path` no longer names it (removed, or replaced by another file or a
   * directory), so that this batch opens the path again; checked at most once every REOPEN_CHECK_MS.
   */
  #checkStillThere(path: string): void {
    const file = this.#file;
    if (file === undefined) return;
    const now = Date.now();
    if (now - this.#checkedAt < REOPEN_CHECK_MS) return;
    this.#checkedAt = now;
    const named = statSync(path, { throwIfNoEntry: false });
    const open = fstatSync(file);
    if (named !== undefined && named.ino === open.ino && named.dev === open.dev) return;
    this.#file = undefined;
    try {
      closeSync(file);
    } catch {
      // the descriptor is given up either way
    }
  }

  async #closeFile(): Promise<void> {
    const file = this.#file;
    this.#file = undefined;
    if (file === undefined) return;
    if ((this.constructor as typeof JsonLinesLogWriter).synchronous) closeSync(file);
    else await closeAsync(file);
  }
}

/** Writes every byte of `buffers` to `file`, in as few calls as the system allows. */
function writeAllSync(file: number, buffers: Buffer[]): void {
  let rest = buffers;
  while (rest.length > 0) {
    let written = writevSync(file, rest);
    let i = 0;
    while (i < rest.length && written >= rest[i].length) written -= rest[i++].length;
    rest = rest.slice(i);
    if (written > 0) rest[0] = rest[0].subarray(written);
  }
}
