import type { ServerResponse } from "node:http";
import type { HttpStreamProducer, HttpStreamSink } from "../exchange/http-response.js";
import { reportInternalError } from "./pipeline-steps.js";

/**
 * The streamed bodies being sent: each can be ended at once when the server stops, so that a stop never
 * waits for a client that keeps a stream open. @internal
 */
export class OpenStreams {
  readonly #open = new Set<AbortController>();

  /** Ends every stream being sent (their producers see their signal abort and return). */
  endAll(): void {
    for (const controller of this.#open) controller.abort();
  }

  /**
   * Runs `producer` into `res`, whose head was sent, and ends the response when it settles (a producer that
   * throws is reported and its response ended all the same: the client reconnects). The producer's signal
   * aborts when the client goes away or `endAll` runs.
   */
  async run(res: ServerResponse, producer: HttpStreamProducer): Promise<void> {
    const controller = new AbortController();
    this.#open.add(controller);
    const onClose = (): void => controller.abort();
    res.once("close", onClose);
    const sink: HttpStreamSink = {
      write: (text) => (res.destroyed || res.writableEnded ? false : res.write(text)),
      // What waits in the response's own queue and in its socket's (where node:http puts what it sends).
      get pendingBytes() {
        return res.writableLength + (res.socket?.writableLength ?? 0);
      },
      signal: controller.signal,
    };
    try {
      await producer(sink);
    } catch (error) {
      reportInternalError(error);
    } finally {
      this.#open.delete(controller);
      res.off("close", onClose);
      if (!res.destroyed && !res.writableEnded) res.end();
    }
  }
}
