import type { Readable } from "node:stream";

/**
 * The rows of a result stream of the connector (`queryStream`), taken a batch at a time. The connector pauses its
 * socket while the stream's small buffer is full, so the server waits on its network write and the process holds
 * no more than a few rows beyond the batch being taken: the back-pressure of a cursor without one on the server.
 */
export class MariaDbResultStream {
  readonly #stream: Readable;
  #ended = false;
  #failure: unknown;
  #wake: (() => void) | undefined;

  /** @param stream the connector's result stream, in object mode, one row (an array) per object. */
  constructor(stream: Readable) {
    this.#stream = stream;
    stream.on("readable", this.#wakeUp);
    stream.on("end", () => {
      this.#ended = true;
      this.#wakeUp();
    });
    // The connector also reports a closed connection as an error (with or without one): a result cut short.
    stream.on("error", (error: unknown) => {
      if (!this.#ended) this.#failure ??= error ?? new Error("The connection closed during a result stream.");
      this.#wakeUp();
    });
  }

  /** Whether every row was taken. */
  get ended(): boolean {
    return this.#ended;
  }

  /** The next `count` rows (fewer only at the end); the stream's failure is thrown. */
  async take(count: number): Promise<unknown[][]> {
    const rows: unknown[][] = [];
    while (rows.length < count) {
      if (this.#failure !== undefined) throw this.#failure;
      const row = this.#stream.read() as unknown[] | null;
      if (row !== null) {
        rows.push(row);
        continue;
      }
      if (this.#ended) break;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
    return rows;
  }

  /**
   * Stops a result that was not read to its end: `kill` stops the statement on the server (KILL QUERY, over a
   * connection of its own), then the rows still on their way are let through and dropped, so that the server,
   * whose write the paused socket held, reaches the kill and ends the statement. Resolves when the stream ended.
   */
  async stop(kill: () => Promise<void>): Promise<void> {
    if (this.#ended || this.#failure !== undefined) return;
    await kill().catch(() => undefined);
    const settled = new Promise<void>((resolve) => {
      const done = (): void => resolve();
      this.#stream.once("end", done);
      this.#stream.once("error", done);
      this.#stream.once("close", done);
    });
    (this.#stream as Readable & { close?: () => void }).close?.();
    // A stream with a "readable" listener ignores resume(): without it, the rows left flow out and are dropped.
    this.#stream.off("readable", this.#wakeUp);
    this.#stream.resume();
    if (!this.#ended && this.#failure === undefined) await settled;
  }

  readonly #wakeUp = (): void => {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  };
}
