import type { RowCursor } from "./database.js";

/**
 * A cursor over rows already read whole: what a session reads through where the engine has no cursor of its own
 * for the connection at hand (an in-memory SQLite database, a read inside a transaction on SQLite, an engine
 * without `openCursor`). The rows are handed out a batch at a time and let go as they are.
 */
export class ArrayCursor implements RowCursor {
  #rows: unknown[][] | undefined;
  #next = 0;

  /** @param rows the whole result. */
  constructor(rows: unknown[][]) {
    this.#rows = rows;
  }

  /** @inheritdoc */
  read(count: number): Promise<unknown[][]> {
    const rows = this.#rows;
    if (rows === undefined) return Promise.resolve([]);
    const batch = rows.slice(this.#next, this.#next + count);
    // Handed-out rows are dropped, so that memory shrinks as the reader goes.
    for (let i = this.#next; i < this.#next + batch.length; i++) rows[i] = emptyRow;
    this.#next += batch.length;
    if (this.#next >= rows.length) this.#rows = undefined;
    return Promise.resolve(batch);
  }

  /** @inheritdoc */
  close(): Promise<void> {
    this.#rows = undefined;
    return Promise.resolve();
  }
}

const emptyRow: unknown[] = [];
