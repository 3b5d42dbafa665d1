import { Buffer } from "node:buffer";
import type { IncomingMessage, ServerResponse } from "node:http";

/** Where a body reader delivers its outcome (the request pipeline). @internal */
export interface BodySink {
  /** The body is complete. */
  run(req: IncomingMessage, res: ServerResponse, body: Buffer): void;
  /** The body passed the ceiling (`body` holds it cut there) or the client went away (`body` undefined). */
  drop(req: IncomingMessage, body: Buffer | undefined): void;
  /** The body arrived more slowly than the minimum data rate (`body` holds what came): answer 408 and close. */
  expire(req: IncomingMessage, res: ServerResponse, body: Buffer): void;
}

/**
 * Watches the bodies being read against a minimum data rate (not a cap on the whole request): a body may take
 * `bodyTimeout` ms, plus one second for every `minBodyDataRate` bytes received, so an upload that keeps
 * progressing at least at that rate is never cut, however long it is. A coarse clock ticks a few times a
 * second; a body costs a set insertion and removal, no timer of its own.
 * @internal
 */
export class BodyWatch {
  readonly #timeout: number;
  readonly #rate: number;
  readonly #readers = new Set<BodyReader>();
  readonly #timer: NodeJS.Timeout | undefined;
  /** The coarse clock, in ms, read when a body starts. */
  now = Date.now();

  /** @param timeout the initial allowance in ms (0: no watch). @param rate bytes that earn one more second. */
  constructor(timeout: number, rate: number) {
    this.#timeout = timeout;
    this.#rate = rate;
    if (timeout > 0) {
      this.#timer = setInterval(this.#tick, Math.max(50, Math.min(250, Math.floor(timeout / 4))));
      this.#timer.unref();
    }
  }

  /** True when bodies are watched. */
  get active(): boolean {
    return this.#timer !== undefined;
  }

  /** @internal */
  add(reader: BodyReader): void {
    this.#readers.add(reader);
  }

  /** @internal */
  remove(reader: BodyReader): void {
    this.#readers.delete(reader);
  }

  /** Stops the clock (the server stopped). */
  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#readers.clear();
  }

  readonly #tick = (): void => {
    const now = Date.now();
    this.now = now;
    if (this.#readers.size === 0) return;
    for (const reader of this.#readers) {
      const allowed = this.#timeout + (this.#rate > 0 ? (reader.received / this.#rate) * 1000 : Number.POSITIVE_INFINITY);
      if (now - reader.startedAt > allowed) reader.expire();
    }
  };
}

/**
 * Reads a request body, bounded by the ceiling `maxRequestContentLength`: a chunked or understated body that
 * grows past it is cut there and the connection is dropped without an answer. A body slower than the
 * watch's minimum data rate is answered 408 and its connection closed.
 * @internal
 */
export class BodyReader {
  readonly #pipeline: BodySink;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #limit: number;
  readonly #watch: BodyWatch;
  readonly #chunks: Buffer[] = [];
  #length = 0;
  #settled = false;
  /** When reading started, on the watch's clock. */
  readonly startedAt: number;

  constructor(pipeline: BodySink, req: IncomingMessage, res: ServerResponse, limit: number, watch: BodyWatch) {
    this.#pipeline = pipeline;
    this.#req = req;
    this.#res = res;
    this.#limit = limit;
    this.#watch = watch;
    this.startedAt = watch.now;
  }

  /** The bytes received so far. */
  get received(): number {
    return this.#length;
  }

  /** Starts listening to the request stream. */
  start(): void {
    if (this.#watch.active) this.#watch.add(this);
    this.#req.on("data", this.#onData).on("end", this.#onEnd).on("close", this.#onClose).on("error", this.#onError);
  }

  /** Called by the watch: the body is too slow. */
  expire(): void {
    if (this.#settle()) this.#pipeline.expire(this.#req, this.#res, Buffer.concat(this.#chunks, this.#length));
  }

  /** Marks the outcome decided; false when it already was. */
  #settle(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    this.#watch.remove(this);
    return true;
  }

  readonly #onData = (chunk: Buffer): void => {
    if (this.#settled) return;
    const limit = this.#limit;
    if (limit > 0 && this.#length + chunk.length > limit) {
      this.#chunks.push(chunk.subarray(0, limit - this.#length));
      this.#length = limit;
      this.#settle();
      this.#pipeline.drop(this.#req, Buffer.concat(this.#chunks, this.#length));
      return;
    }
    this.#chunks.push(chunk);
    this.#length += chunk.length;
  };

  readonly #onEnd = (): void => {
    if (!this.#settle()) return;
    const body = this.#chunks.length === 1 ? this.#chunks[0] : Buffer.concat(this.#chunks, this.#length);
    this.#pipeline.run(this.#req, this.#res, body);
  };

  readonly #onClose = (): void => {
    // The client went away before the body was complete: nothing to answer, no context was built.
    if (this.#settle()) this.#pipeline.drop(this.#req, undefined);
  };

  readonly #onError = (): void => {
    this.#onClose();
  };
}
