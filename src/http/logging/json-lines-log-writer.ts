import { open, type FileHandle } from "node:fs/promises";
import type { HttpLogAction, HttpLogDiscarded, HttpLogError, HttpLogRequest, HttpLogResponse } from "./http-log-records.js";
import { HttpLogWriter } from "./http-log-writer.js";

/** The kind of a JSON-lines log entry, written as its `"log"` key. */
export type JsonLinesLogKind = "action" | "request" | "response" | "discarded" | "error";

/**
 * A log writer that appends one JSON object per line, `{"log": "<kind>", ...record.toJson()}`, to a file or to
 * standard output. The file is opened on the first write, not in the constructor, and opened again on the next
 * write after a failure, so a destination missing at start-up (a directory not created yet) is survived.
 *
 * Configure the destination with the static `path` (undefined for standard output), on this class or on a
 * subclass: `class AppLog extends JsonLinesLogWriter { static override path = "data/http.log"; }`.
 */
export class JsonLinesLogWriter extends HttpLogWriter {
  /** The file that instances of this class append to; undefined writes to standard output. */
  static path: string | undefined = undefined;

  #file: FileHandle | undefined;
  #opening: Promise<FileHandle> | undefined;

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

  /** Closes the file, if one is open. */
  override async close(): Promise<void> {
    const file = this.#file ?? (await this.#opening?.catch(() => undefined));
    this.#file = undefined;
    this.#opening = undefined;
    await file?.close();
  }

  /** Appends `{"log": kind, ...json}` and a newline; subclasses may call it for lines of their own. */
  protected writeLine(kind: JsonLinesLogKind, json: object): Promise<void> | void {
    const line = JSON.stringify({ log: kind, ...json }) + "\n";
    const path = this.path;
    if (path === undefined) {
      process.stdout.write(line);
      return;
    }
    return this.#append(path, line);
  }

  async #append(path: string, line: string): Promise<void> {
    const file = this.#file ?? (await this.#openFile(path));
    await file.write(line);
  }

  async #openFile(path: string): Promise<FileHandle> {
    this.#opening ??= open(path, "a");
    try {
      this.#file = await this.#opening;
      return this.#file;
    } finally {
      this.#opening = undefined;
    }
  }
}
