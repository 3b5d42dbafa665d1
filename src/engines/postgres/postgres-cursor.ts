import type { RowCursor } from "../database.js";

/** The name of the cursor a connection declares: one cursor at a time per connection, in its own transaction. */
export const cursorName = "tenon_cursor";

/** The statement that declares the cursor over `sql` (its parameters are the query's own). */
export function declareCursorSql(sql: string): string {
  return `DECLARE ${cursorName} NO SCROLL CURSOR FOR ${sql}`;
}

/** The statement that reads the next `count` rows of the cursor. */
export function fetchSql(count: number): string {
  return `FETCH FORWARD ${Math.max(1, Math.trunc(count))} FROM ${cursorName}`;
}

/** What a cursor needs of its connection. */
export interface PostgresCursorConnection {
  /** Runs FETCH and answers its rows. */
  fetch(count: number): Promise<unknown[][]>;
  /** Sends a cancel request for the statement running now (a FETCH), if any. */
  cancel(): Promise<void>;
  /** Ends the cursor's transaction (ROLLBACK, which closes the cursor). */
  end(): Promise<void>;
}

/**
 * A server-side cursor (`DECLARE ... NO SCROLL CURSOR` in a read-only transaction), read with `FETCH FORWARD n`:
 * the server keeps the query's state between reads, so a reader that pauses holds no rows but those of one
 * batch. Closing it while a FETCH runs sends a cancel request first, then rolls the transaction back.
 */
export class PostgresCursor implements RowCursor {
  readonly #connection: PostgresCursorConnection;
  #reading: Promise<unknown[][]> | undefined;
  #done = false;
  #closing: Promise<void> | undefined;

  /** @param connection the connection the cursor was declared on. */
  constructor(connection: PostgresCursorConnection) {
    this.#connection = connection;
  }

  /** @inheritdoc */
  async read(count: number): Promise<unknown[][]> {
    if (this.#done || this.#closing !== undefined) return [];
    const reading = this.#connection.fetch(count);
    this.#reading = reading;
    try {
      const rows = await reading;
      if (rows.length < count) this.#done = true;
      return rows;
    } finally {
      this.#reading = undefined;
    }
  }

  /** @inheritdoc */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const reading = this.#reading;
    if (reading !== undefined) {
      await this.#connection.cancel();
      await reading.catch(() => undefined);
    }
    // A connection whose rollback fails is closed rather than pooled (it is left inside a transaction).
    await this.#connection.end().catch(() => undefined);
  }
}
