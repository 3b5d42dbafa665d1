import { TenonError, TransientDatabaseError } from "../errors.js";
import type { SessionConnection } from "./session-connection.js";
import { SessionMessages } from "./session-messages.js";

/**
 * The transaction of one session: the outermost `run` begins it on the session's connection and commits or
 * rolls it back; a `run` inside it joins it. Kept apart from the session so that what wraps a transaction
 * (a retry of the whole unit, say) has one entry point to wrap.
 */
export class TransactionScope {
  readonly #connection: SessionConnection;
  readonly #onRollback: () => void;
  #depth = 0;

  /** @param connection the session's connection. @param onRollback forgets what the session read inside a rolled-back transaction. */
  constructor(connection: SessionConnection, onRollback: () => void) {
    this.#connection = connection;
    this.#onRollback = onRollback;
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
      await connection.commit();
      return result;
    } catch (error) {
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
