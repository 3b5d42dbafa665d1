import type { RowCursor } from "../database.js";
import { sqliteError } from "./sqlite-errors.js";
import type { SqliteHandle } from "./sqlite-driver.js";

/**
 * A statement stepped a row at a time on a read-only connection of its own to the file (both drivers are
 * synchronous, and a statement being stepped on the shared connection would keep its writes out). In WAL mode
 * the statement reads one snapshot from its first row to its last while the shared connection goes on writing;
 * without WAL its read lock keeps writers waiting until the cursor closes.
 */
export class SqliteCursor implements RowCursor {
  readonly #handle: SqliteHandle;
  #rows: Iterator<unknown> | undefined;

  /** @param handle the cursor's own connection, closed with it. @param rows the statement's rows. */
  constructor(handle: SqliteHandle, rows: Iterator<unknown>) {
    this.#handle = handle;
    this.#rows = rows;
  }

  /** @inheritdoc */
  read(count: number): Promise<unknown[][]> {
    const rows: unknown[][] = [];
    const iterator = this.#rows;
    try {
      while (iterator !== undefined && rows.length < count) {
        const next = iterator.next();
        if (next.done === true) {
          this.#finish();
          break;
        }
        rows.push(next.value as unknown[]);
      }
    } catch (error) {
      this.#finish();
      return Promise.reject(sqliteError(error));
    }
    return Promise.resolve(rows);
  }

  /** @inheritdoc */
  close(): Promise<void> {
    this.#finish();
    return Promise.resolve();
  }

  #finish(): void {
    const iterator = this.#rows;
    this.#rows = undefined;
    try {
      iterator?.return?.();
    } catch {
      // The statement is reset by closing its connection anyway.
    }
    this.#handle.close();
  }
}
