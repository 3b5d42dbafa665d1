import type { IncomingMessage } from "node:http";
import { HttpClientGoneError, HttpError } from "./http-errors.js";
import { HttpMessages, HttpStatus } from "./http-messages.js";

/**
 * A request body read as it arrives (`HttpRequest.bodyStream`), for a route that asks for it
 * (`HttpRouteOptions.streamedBody`): chunks are taken from the socket only as the handler asks for them, so
 * the client waits while the handler works (TCP holds it back) and the server holds one chunk at a time. A body
 * past `limit` bytes (0: no limit) throws `HttpError` 413; a client that sends nothing for `idleMs` (0: no
 * wait is too long) throws 408; a client that goes away throws `HttpClientGoneError`. It can be read once.
 * @internal
 */
export class StreamedBody implements AsyncIterable<Buffer> {
  readonly #raw: IncomingMessage;
  readonly #limit: number;
  readonly #idleMs: number;
  #received = 0;
  #started = false;

  /** @param raw the request. @param limit the ceiling in bytes (0: none). @param idleMs the longest wait for a chunk (0: none). */
  constructor(raw: IncomingMessage, limit: number, idleMs: number) {
    this.#raw = raw;
    this.#limit = limit;
    this.#idleMs = idleMs;
  }

  /** The bytes read so far. */
  get received(): number {
    return this.#received;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    if (this.#started) throw new HttpError(HttpStatus.internalServerError, HttpMessages.bodyStreamReadTwice);
    this.#started = true;
    const chunks = this.#raw[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    for (;;) {
      const next = await this.#next(chunks);
      if (next.done === true) return;
      const chunk = next.value;
      this.#received += chunk.length;
      if (this.#limit > 0 && this.#received > this.#limit) {
        throw new HttpError(HttpStatus.payloadTooLarge, HttpMessages.payloadTooLarge(this.#limit));
      }
      yield chunk;
    }
  }

  /** The next chunk, within the idle time; a client gone is `HttpClientGoneError`. */
  async #next(chunks: AsyncIterator<Buffer>): Promise<IteratorResult<Buffer>> {
    let timer: NodeJS.Timeout | undefined;
    const reading = chunks.next();
    try {
      if (this.#idleMs <= 0) return await reading;
      const expired = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new HttpError(HttpStatus.requestTimeout, HttpMessages.requestTimeout)), this.#idleMs);
      });
      return await Promise.race([reading, expired]);
    } catch (error) {
      // The request stream fails when its client closed the connection before the body's end.
      if (error instanceof HttpError) throw error;
      throw new HttpClientGoneError(HttpMessages.clientGoneDuringBody);
    } finally {
      clearTimeout(timer);
    }
  }
}
