import type { IncomingMessage, ServerResponse } from "node:http";

/** Where a body reader delivers its outcome (the request pipeline). @internal */
export interface BodySink {
  /** The body is complete. */
  run(req: IncomingMessage, res: ServerResponse, body: Buffer): void;
  /** The body passed the ceiling (`body` holds it cut there) or the client went away (`body` undefined). */
  drop(req: IncomingMessage, body: Buffer | undefined): void;
}

/**
 * Reads a request body, bounded by the ceiling (SPEC.md 7 rule 1): a chunked or understated body that
 * grows past it is cut there and the connection is dropped without an answer.
 * @internal
 */
export class BodyReader {
  readonly #pipeline: BodySink;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #limit: number;
  readonly #chunks: Buffer[] = [];
  #length = 0;
  #settled = false;

  constructor(pipeline: BodySink, req: IncomingMessage, res: ServerResponse, limit: number) {
    this.#pipeline = pipeline;
    this.#req = req;
    this.#res = res;
    this.#limit = limit;
  }

  /** Starts listening to the request stream. */
  start(): void {
    this.#req.on("data", this.#onData).on("end", this.#onEnd).on("close", this.#onClose).on("error", this.#onError);
  }

  readonly #onData = (chunk: Buffer): void => {
    if (this.#settled) return;
    const limit = this.#limit;
    if (limit > 0 && this.#length + chunk.length > limit) {
      this.#chunks.push(chunk.subarray(0, limit - this.#length));
      this.#length = limit;
      this.#settled = true;
      this.#pipeline.drop(this.#req, Buffer.concat(this.#chunks, this.#length));
      return;
    }
    this.#chunks.push(chunk);
    this.#length += chunk.length;
  };

  readonly #onEnd = (): void => {
    if (this.#settled) return;
    this.#settled = true;
    const body = this.#chunks.length === 1 ? this.#chunks[0] : Buffer.concat(this.#chunks, this.#length);
    this.#pipeline.run(this.#req, this.#res, body);
  };

  readonly #onClose = (): void => {
    if (this.#settled) return;
    // The client went away before the body was complete: nothing to answer, no context was built.
    this.#settled = true;
    this.#pipeline.drop(this.#req, undefined);
  };

  readonly #onError = (): void => {
    this.#onClose();
  };
}
