import { TransientDatabaseError } from "../errors.js";
import type { Connection } from "./database.js";

/** What a statement does, for deciding whether a lost connection leaves it in doubt: see `PooledConnection.run`. */
export type StatementMode = "read" | "write" | "commit";

/** The driver-specific half of a pooled connection: what `PooledConnection` needs from each engine. */
export interface PooledDriverConnection<R> {
  /** Sends one statement to the server and answers the driver's result. */
  send(sql: string, parameters: readonly unknown[]): Promise<R>;
  /** Gives the connection back to the driver's pool, or closes it for good when `close` is true. */
  giveBack(close: boolean): void;
  /** Starts or stops listening for the connection's asynchronous "error" event. */
  listen(onError: ((error: unknown) => void) | undefined): void;
  /** Asks the server, over another connection, to stop the statement running on this one. */
  cancel(): Promise<void>;
}

/** How one engine describes its failures. */
export interface PooledConnectionErrors {
  /** Whether a driver error means the connection itself is gone. */
  isConnectionLost(error: unknown): boolean;
  /** The `DatabaseError` reported for a driver error. */
  wrap(error: unknown): Error;
  /** The error for a statement sent after the session gave the connection back. */
  givenBack(): Error;
}

/**
 * A connection borrowed from a server engine's pool for one session, with the state every engine keeps
 * the same way: a connection that broke fails every later statement and is closed instead of pooled, a
 * rollback on a broken connection is a no-op (the server already discarded the transaction), and one left
 * inside a transaction is closed too. Subclasses add query, execute and nextId in their engine's terms.
 */
export abstract class PooledConnection<R> implements Connection {
  readonly #driver: PooledDriverConnection<R>;
  readonly #errors: PooledConnectionErrors;
  readonly #onReturned: (connection: PooledConnection<R>) => void;
  readonly #beginSql: string;
  /** Set when the connection broke: it is then closed on release, never pooled again. */
  #lost: unknown;
  #inTransaction = false;
  #released = false;
  /** Statements sent and not yet answered (a session sends one at a time; the count guards a cancel). */
  #running = 0;
  readonly #onError = (error: unknown): void => {
    this.#lost ??= error;
  };

  /**
   * @param driver the engine's connection. @param errors the engine's error rules. @param beginSql the
   * engine's statement that starts a transaction. @param onReturned told once when the connection goes back.
   */
  protected constructor(
    driver: PooledDriverConnection<R>,
    errors: PooledConnectionErrors,
    beginSql: string,
    onReturned: (connection: PooledConnection<R>) => void,
  ) {
    this.#driver = driver;
    this.#errors = errors;
    this.#beginSql = beginSql;
    this.#onReturned = onReturned;
    // A checked-out connection whose backend dies emits "error"; unheard, that would end the process.
    driver.listen(this.#onError);
  }

  /** @inheritdoc */
  abstract query(sql: string, parameters: readonly unknown[]): Promise<unknown[][]>;
  /** @inheritdoc */
  abstract execute(sql: string, parameters: readonly unknown[]): Promise<number>;
  /** @inheritdoc */
  abstract nextId(sequence: string, table: string, keyColumn: string): Promise<number>;

  /** @inheritdoc */
  async begin(): Promise<void> {
    await this.run(this.#beginSql, []);
    this.#inTransaction = true;
  }

  /**
   * Starts a read-only transaction (the engine's begin statement with `READ ONLY`): what a cursor reads in, so
   * that its rows come from one snapshot and nothing it runs can write.
   */
  protected async beginReadOnly(): Promise<void> {
    await this.run(`${this.#beginSql} READ ONLY`, []);
    this.#inTransaction = true;
  }

  /** @inheritdoc */
  async commit(): Promise<void> {
    try {
      await this.run("COMMIT", [], "commit");
    } finally {
      this.#inTransaction = false;
    }
  }

  /** @inheritdoc */
  async rollback(): Promise<void> {
    // A connection that broke has no transaction left to roll back: the server discarded it.
    if (this.#lost !== undefined) {
      this.#inTransaction = false;
      return;
    }
    try {
      await this.run("ROLLBACK", []);
    } catch (error) {
      if (this.#lost === undefined) throw error;
    } finally {
      this.#inTransaction = false;
    }
  }

  /** @inheritdoc */
  release(): void {
    // A broken connection, or one left inside a transaction, is closed rather than handed to the next session.
    this.#giveBack(this.#lost !== undefined || this.#inTransaction);
  }

  /** Closes the connection instead of pooling it: the database is closing under a session never disposed. */
  discard(): void {
    this.#giveBack(true);
  }

  /**
   * Sends a statement, refusing it on a connection given back or broken, and noting a connection that breaks.
   * A connection lost while a statement that commits ran (COMMIT, or a write outside a transaction, which
   * commits by itself) leaves the outcome in doubt: the error is marked unsafe to retry. Lost anywhere else
   * (a read, or any statement inside a transaction), the server kept nothing of it, and a retry is safe.
   */
  protected run(sql: string, parameters: readonly unknown[], mode: StatementMode = "read"): Promise<R> {
    return this.guarded(() => this.#driver.send(sql, parameters), mode);
  }

  /**
   * Runs `work` on the driver's connection as `run` runs a statement: refused on a connection given back or
   * broken, counted as running (so that `cancel` reaches it), its failure turned into the engine's typed error.
   * For what talks to the driver other than through `send` (a cursor's result stream).
   */
  protected async guarded<T>(work: () => Promise<T>, mode: StatementMode = "read"): Promise<T> {
    if (this.#released) throw this.#errors.givenBack();
    if (this.#lost !== undefined) throw this.#errors.wrap(this.#lost);
    this.#running++;
    try {
      return await work();
    } catch (error) {
      const lost = this.#errors.isConnectionLost(error);
      if (lost) this.#lost ??= error;
      const wrapped = this.#errors.wrap(error);
      const commits = mode === "commit" || (mode === "write" && !this.#inTransaction);
      if (lost && commits && wrapped instanceof TransientDatabaseError) throw wrapped.inDoubt();
      throw wrapped;
    } finally {
      this.#running--;
    }
  }

  /** @inheritdoc */
  async cancel(): Promise<void> {
    if (this.#running === 0 || this.#released || this.#lost !== undefined) return;
    try {
      await this.#driver.cancel();
    } catch {
      // The statement runs on to its end or to the statement timeout: nothing else to do.
    }
  }

  #giveBack(close: boolean): void {
    if (this.#released) return;
    this.#released = true;
    this.#onReturned(this);
    this.#driver.listen(undefined);
    this.#driver.giveBack(close);
  }
}
