import { TenonError, TransientDatabaseError } from "../errors.js";
import type { Connection } from "../engines/database.js";
import type { SessionConnection } from "./session-connection.js";
import { SessionMessages } from "./session-messages.js";

/** What a transaction does with the change records its writes kept: write them before COMMIT, announce them after. */
export interface TransactionChanges {
  /** Writes the records kept, just before COMMIT. */
  flush(connection: Connection, kept: readonly unknown[]): Promise<void>;
  /** The transaction that wrote them committed. */
  committed(): void;
}

/**
 * The transaction of one session: the outermost `run` begins it on the session's connection and commits or
 * rolls it back; a `run` inside it joins it. Kept apart from the session so that what wraps a transaction
 * (a retry of the whole unit, say) has one entry point to wrap. The change records of its writes are kept here
 * until the outermost `run` writes them just before COMMIT; a rollback drops them.
 */
export class TransactionScope {
  readonly #connection: SessionConnection;
  readonly #onRollback: () => void;
  readonly #changes: TransactionChanges;
  #depth = 0;
  #kept: unknown[] | undefined = undefined;

  /**
   * @param connection the session's connection. @param onRollback forgets what the session read inside a
   * rolled-back transaction. @param changes writes and announces the change records kept.
   */
  constructor(connection: SessionConnection, onRollback: () => void, changes: TransactionChanges) {
    this.#connection = connection;
    this.#onRollback = onRollback;
    this.#changes = changes;
  }

  /** Keeps change records until the transaction commits (call it inside `run`). */
  keep(records: readonly unknown[]): void {
    if (records.length === 0) return;
    const kept = (this.#kept ??= []);
    for (const record of records) kept.push(record);
  }

  /** Whether a transaction is open. */
  get active(): boolean {
    return this.#depth > 0;
  }

  /**
   * Runs `work` in the transaction: commit when it resolves, roll back when it throws. A rollback that fails
   * too is reported with the first failure as its cause, except after a transient failure, which is thrown
   * as it is (a lost connection has no transaction left to roll back).
   */
  async run<R>(work: () => Promise<R>): Promise<R> {
    if (this.#depth > 0) {
      this.#depth++;
      try {
        return await work();
      } finally {
        this.#depth--;
      }
    }
    const connection = await this.#connection.acquire();
    await connection.begin();
    this.#depth = 1;
    try {
      const result = await work();
      const kept = this.#kept;
      if (kept === undefined) {
        await connection.commit();
        return result;
      }
      await this.#changes.flush(connection, kept);
      await connection.commit();
      this.#kept = undefined;
      this.#changes.committed();
      return result;
    } catch (error) {
      this.#kept = undefined;
      this.#onRollback();
      try {
        await connection.rollback();
      } catch (rollbackError) {
        // A transient failure stays what it is: the server discards the transaction of a lost connection.
        if (error instanceof TransientDatabaseError) throw error;
        throw new TenonError(SessionMessages.rollbackFailed((rollbackError as Error).message), { cause: error });
      }
      throw error;
    } finally {
      this.#depth = 0;
    }
  }
}
