import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { HttpStreamSink, HttpStreamProducer } from "../exchange/http-response.js";
import type { HttpStreamPiece } from "../exchange/http-stream-piece.js";

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
    // The socket `cork` corked: `uncork` uncorks that one, whatever happened to the response in between.
    let corked: Socket | null = null;
    const sink: HttpStreamSink = {
      write: (text) => (res.destroyed || res.writableEnded ? false : res.write(text)),
      writePiece: (piece) => writePiece(res, piece),
      cork: () => {
        if (corked !== null || res.socket === null) return;
        corked = res.socket;
        corked.cork();
      },
      uncork: () => {
        const socket = corked;
        corked = null;
        socket?.uncork();
      },
      // What waits in the response's own queue and in its socket's: node:http's `writableLength` counts both.
      get pendingBytes() {
        return res.writableLength;
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

/**
 * Writes `piece` to `res`, whose head was sent: its chunk straight to the socket when that is the very text
 * `res.write` would send there (a chunked body, on a connection that is the response's and still writable, and
 * nothing held by the response: not its head, waiting for its turn on the connection, nor chunks of this tick
 * that Node.js 26 keeps in the response until the next one), through `res.write` otherwise. The body's end
 * (`res.end`, its last chunk) follows on the same socket, so the client reads one well-formed chunked body.
 */
function writePiece(res: ServerResponse, piece: HttpStreamPiece): boolean {
  if (res.destroyed || res.writableEnded) return false;
  const socket = res.socket;
  if (res.chunkedEncoding && socket?.writable && res.writableLength === socket.writableLength) return socket.write(piece.chunk);
  return res.write(piece.bytes);
}

/**
 * Resolves when `res` no longer needs a drain (what it wrote went on to the socket, and what was written to the
 * socket, pieces straight to it included, went on to the connection), or the signal aborts.
 */
function drainedOf(res: ServerResponse, signal: AbortSignal): Promise<void> {
  if (res.destroyed || signal.aborted) return Promise.resolve();
  // The response says so for what `res.write` held; a piece written to the socket is the socket's to say.
  const socket = res.socket;
  const source = res.writableNeedDrain ? res : socket?.writableNeedDrain ? socket : undefined;
  if (source === undefined) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      source.off("drain", done);
      res.off("close", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    source.once("drain", done);
    res.once("close", done);
    signal.addEventListener("abort", done, { once: true });
  });
}
