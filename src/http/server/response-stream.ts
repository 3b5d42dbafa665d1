import type { ServerResponse } from "node:http";
import type { HttpStreamSink, HttpStreamProducer } from "../exchange/http-response.js";

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
   * Runs `producer` into `res`, whose head was sent, and answers what it threw (undefined when it returned),
   * the response still open: the caller ends it as the stream's failure mode says. The producer's signal
   * aborts when the client goes away or `endAll` runs.
   */
  async run(res: ServerResponse, producer: HttpStreamProducer): Promise<{ readonly failed: boolean; readonly error: unknown }> {
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
      drained: () => drainedOf(res, controller.signal),
    };
    try {
      await producer(sink);
      return noFailure;
    } catch (error) {
      return { failed: true, error };
    } finally {
      this.#open.delete(controller);
      res.off("close", onClose);
    }
  }
}

const noFailure = { failed: false, error: undefined };

/** Resolves when `res` no longer needs a drain (its buffers went on to the socket), or the signal aborts. */
function drainedOf(res: ServerResponse, signal: AbortSignal): Promise<void> {
  if (!res.writableNeedDrain || res.destroyed || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      res.off("drain", done);
      res.off("close", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    res.once("drain", done);
    res.once("close", done);
    signal.addEventListener("abort", done, { once: true });
  });
}
