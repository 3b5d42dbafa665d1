import { Buffer } from "node:buffer";
import type { HttpNameValue } from "./http-request.js";
import { HttpDefaults, HttpStatus } from "./http-messages.js";
import type { HttpStreamPiece } from "./http-stream-piece.js";

/**
 * Where a streamed body goes (`HttpResponse.stream`): text written as it is produced, to a client that may read
 * slower than it is written.
 */
export interface HttpStreamSink {
  /** Writes text; false when the client has not taken what was written before (the text is queued meanwhile). */
  write(text: string): boolean;
  /**
   * Writes a piece made once for many responses (`HttpStreamPiece`); answers as `write`. On a chunked body whose
   * response holds nothing back, its chunk goes to the connection as it was framed, with no encoding or framing
   * of its own.
   */
  writePiece(piece: HttpStreamPiece): boolean;
  /**
   * Holds what is written from now on until `uncork`, which sends it in one write to the connection (a `cork`
   * while corked does nothing: the first `uncork` sends).
   */
  cork(): void;
  /** Sends what was written since `cork`. */
  uncork(): void;
  /** The bytes written that the client has not taken yet. */
  readonly pendingBytes: number;
  /** Aborted when the client goes away or the server stops: the producer then returns. */
  readonly signal: AbortSignal;
  /**
   * Resolves once what was written has gone on to the client's connection (at once when nothing waits), or
   * when the signal aborts: a producer that awaits it after a `write` that answered false holds no more than
   * the connection's buffers, however slowly its client reads.
   */
  drained(): Promise<void>;
}

/** Produces a streamed body into `sink`; the response ends when the promise settles. */
export type HttpStreamProducer = (sink: HttpStreamSink) => Promise<void>;

/**
 * The error answer a streamed body could not send as its status, because the head had gone: what a producer
 * that failed after its first byte tells its client (`HttpStreamOptions.onFailure`). For a status of 500 and
 * above the message is the constant one and `taskId` ties it to the log, as in every error answer.
 */
export interface HttpStreamFailure {
  /** The status the failure would have been answered with. */
  readonly status: number;
  /** Its error body: `{status, message}`, with `taskId` for a status of 500 and above. */
  readonly body: Readonly<Record<string, unknown>>;
}

/**
 * How a streamed body ends when its producer fails after the head was sent (the failure is logged as any
 * error answer is: an error record with its task id for a status of 500 and above):
 * - `"end"` (the default) ends the body as if it were complete: for an event stream, whose client reconnects;
 * - `"abort"` cuts the connection without the chunked body's last chunk, so that the client sees the body
 *   incomplete (an error of its HTTP library), never a complete one;
 * - a function answers a last piece of text to send before the body ends (a trailer line that says what failed).
 */
export type HttpStreamFailureMode = "end" | "abort" | ((failure: HttpStreamFailure) => string);

/** Options of `HttpResponse.stream`. */
export interface HttpStreamOptions {
  /** What the client is left with when the producer fails after the head was sent (default `"end"`). */
  readonly onFailure?: HttpStreamFailureMode;
}

/**
 * The answer a handler builds. The server sends it after the handler
 * returns: `statusCode` (200 unless set), `content` as UTF-8 (or the bytes of `setContentBytes`) with a `Content-Length`, `contentType`
 * (JSON by default when there is content), and the headers set with `setHeader`.
 *
 * When an error is answered instead, the headers and content type the handler set are dropped, and this
 * object is rewritten to hold what was actually sent (so the log sees the error body).
 */
export class HttpResponse {
  /** The value of the `Server` header on every response; an empty string omits the header. */
  static serverHeader: string = HttpDefaults.serverHeader;

  /** The status code (200 unless the handler sets one). */
  statusCode: number = HttpStatus.ok;
  /** The media type of `content` ('' reads as `application/json; charset=utf-8` when there is content). */
  contentType = "";
  /** The `Content-Encoding` of the body ('' when none). */
  contentEncoding = "";
  #content = "";
  #contentBytes: Uint8Array | undefined;
  /** The UTF-8 length of `#content`, -1 until asked for (the writer and the metrics both ask). */
  #contentTextLength = -1;
  #contentAssigned = false;
  /** The handler's headers as `lower-case name, name as set, value` triples (a few, so searched in turn). */
  #headers: string[] | undefined;
  #stream: HttpStreamProducer | undefined;
  #streamOptions: HttpStreamOptions | undefined;

  /** The body text sent to the client. */
  get content(): string {
    return this.#content;
  }
  set content(value: string) {
    this.#content = value;
    this.#contentBytes = undefined;
    this.#contentTextLength = -1;
    this.#contentAssigned = true;
  }

  /** @internal Sets `content` to `text`, whose UTF-8 length the caller knows (`byteLength`): it is not measured again. */
  setContentText(text: string, byteLength: number): void {
    this.#content = text;
    this.#contentBytes = undefined;
    this.#contentTextLength = byteLength;
    this.#contentAssigned = true;
  }

  /**
   * The body as bytes, when the handler sent bytes (`setContentBytes`) rather than text; `content` is then ''.
   * Public API (docs/openapi.md): a handler that answers the same large body to every request encodes it once.
   */
  get contentBytes(): Uint8Array | undefined {
    return this.#contentBytes;
  }

  /**
   * Sends `bytes` as the body, as they are (no encoding; `Content-Length` is their length). The array is not
   * copied: the same cached bytes may be sent to many requests, so it must not change once sent. Assigning
   * `content` afterwards replaces them.
   */
  setContentBytes(bytes: Uint8Array): void {
    this.#content = "";
    this.#contentTextLength = 0;
    this.#contentBytes = bytes;
    this.#contentAssigned = true;
  }

  /** The length in bytes of the body (`content` as UTF-8, or `contentBytes`). */
  get contentLength(): number {
    if (this.#contentBytes !== undefined) return this.#contentBytes.byteLength;
    if (this.#contentTextLength < 0) this.#contentTextLength = Buffer.byteLength(this.#content);
    return this.#contentTextLength;
  }

  /**
   * Streams the body instead of sending `content`: the server sends the status and headers (no
   * `Content-Length`), then runs `producer`, and ends the response when it settles; a request it serves stays in
   * flight until then. To a HEAD request the head goes alone. An error answer replaces a stream not yet started.
   */
  stream(producer: HttpStreamProducer, options?: HttpStreamOptions): void {
    this.#stream = producer;
    this.#streamOptions = options;
    this.#contentAssigned = true;
  }

  /** The producer of a streamed body, when the handler asked for one (`stream`). */
  get streamProducer(): HttpStreamProducer | undefined {
    return this.#stream;
  }

  /** The options the streamed body was asked with, if any. */
  get streamOptions(): HttpStreamOptions | undefined {
    return this.#streamOptions;
  }

  /** True once `content` was assigned (a handler's return value is then not serialized). */
  get isContentAssigned(): boolean {
    return this.#contentAssigned;
  }

  /** Sets (or replaces) a header; names compare without case. */
  setHeader(name: string, value: string): void {
    const lower = lowerCaseName(name);
    const headers = (this.#headers ??= []);
    const at = indexOfHeader(headers, lower);
    if (at < 0) headers.push(lower, name, value);
    else {
      // replaced where it was, so that the order of first setting stays (as a Map keeps it)
      headers[at + 1] = name;
      headers[at + 2] = value;
    }
  }

  /** The value of the header `name` set by the handler, or undefined. */
  header(name: string): string | undefined {
    const headers = this.#headers;
    if (headers === undefined) return undefined;
    const at = indexOfHeader(headers, lowerCaseName(name));
    return at < 0 ? undefined : headers[at + 2];
  }

  /** Removes the header `name`. */
  removeHeader(name: string): void {
    const headers = this.#headers;
    if (headers === undefined) return;
    const at = indexOfHeader(headers, lowerCaseName(name));
    if (at >= 0) headers.splice(at, 3);
  }

  /** The headers set by the handler (not the ones the server adds: Server, Content-Length, CORS). */
  get headers(): readonly HttpNameValue[] {
    const headers = this.#headers;
    const list: HttpNameValue[] = [];
    if (headers !== undefined) for (let i = 0; i < headers.length; i += 3) list.push([headers[i + 1], headers[i + 2]]);
    return list;
  }

  /** @internal The handler's headers as `lower-case name, name as set, value` triples, or undefined when it set none. */
  get headerTriples(): readonly string[] | undefined {
    return this.#headers;
  }

  /** @internal Copies the handler's headers into `target` under lower-case names. */
  copyHeadersTo(target: Record<string, string | number>): void {
    const headers = this.#headers;
    if (headers === undefined) return;
    for (let i = 0; i < headers.length; i += 3) target[headers[i]] = headers[i + 2];
  }

  /** @internal Drops everything the handler set, before an error answer is written. */
  reset(statusCode: number, content: string, contentType: string): void {
    this.#headers = undefined;
    this.statusCode = statusCode;
    this.contentType = contentType;
    this.contentEncoding = "";
    this.#content = content;
    this.#contentBytes = undefined;
    this.#contentTextLength = -1;
    this.#contentAssigned = true;
    this.#stream = undefined;
    this.#streamOptions = undefined;
  }
}

/** The lower-case forms of the header names set so far: handlers set the same few constant names on every request. */
const lowerNames = new Map<string, string>();
/** Bounds `lowerNames`, should an application set names it builds at run time. */
const maxLowerNames = 256;

/** `name.toLowerCase()`, looked up rather than made again for a name seen before. */
function lowerCaseName(name: string): string {
  let lower = lowerNames.get(name);
  if (lower === undefined) {
    lower = name.toLowerCase();
    if (lowerNames.size < maxLowerNames) lowerNames.set(name, lower);
  }
  return lower;
}

/** Where the triple of the header `lower` starts in `headers`, or -1. */
function indexOfHeader(headers: readonly string[], lower: string): number {
  for (let i = 0; i < headers.length; i += 3) if (headers[i] === lower) return i;
  return -1;
}
