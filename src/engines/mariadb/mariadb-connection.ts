import type { PoolConnection } from "mariadb";
import type { DatabaseError } from "../../errors.js";
import type { Connection } from "../database.js";
import type { MariaDbDatabase } from "./mariadb-database.js";
import { connectionGivenBack, isConnectionLost, isSqlError, mariaDbError, missingSequence } from "./mariadb-errors.js";

/** What the connector answers for a statement that returns no rows. */
interface UpsertResult {
  readonly affectedRows: number;
}

/** One pooled connector connection lent to one session. */
export class MariaDbConnection implements Connection {
  readonly #database: MariaDbDatabase;
  readonly #connection: PoolConnection;
  /** Set when the connection broke: it is then destroyed on release, never pooled again. */
  #lost: unknown;
  #inTransaction = false;
  #released = false;
  readonly #onError = (error: unknown): void => {
    this.#lost ??= error;
  };

  /** @internal sessions get connections from `MariaDbDatabase.acquire()`. */
  constructor(database: MariaDbDatabase, connection: PoolConnection) {
    this.#database = database;
    this.#connection = connection;
    connection.on("error", this.#onError);
  }

  /** @inheritdoc */
  async query(sql: string, parameters: readonly unknown[]): Promise<unknown[][]> {
    const rows = await this.#run(sql, parameters);
    return Array.isArray(rows) ? (rows as unknown[][]) : [];
  }

  /** @inheritdoc */
  async execute(sql: string, parameters: readonly unknown[]): Promise<number> {
    const result = await this.#run(sql, parameters);
    return Array.isArray(result) ? result.length : Number((result as UpsertResult).affectedRows ?? 0);
  }

  /** @inheritdoc */
  async begin(): Promise<void> {
    await this.#run("START TRANSACTION", []);
    this.#inTransaction = true;
  }

  /** @inheritdoc */
  async commit(): Promise<void> {
    try {
      await this.#run("COMMIT", []);
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
      await this.#run("ROLLBACK", []);
    } catch (error) {
      if (this.#lost === undefined) throw error;
    } finally {
      this.#inTransaction = false;
    }
  }

  /** @inheritdoc */
  async nextId(sequence: string): Promise<number> {
    const name = this.#database.dialect.quoteIdentifier(sequence);
    try {
      const rows = await this.query(`SELECT NEXTVAL(${name})`, []);
      return Number(rows[0][0]);
    } catch (error) {
      const cause = (error as DatabaseError).cause;
      if (isSqlError(cause) && [1146, 4089, 4091].includes(cause.errno)) {
        throw missingSequence(name, cause);
      }
      throw error;
    }
  }

  /** @inheritdoc */
  release(): void {
    // A broken connection, or one left inside a transaction, is destroyed rather than handed to the next session.
    this.#giveBack(this.#lost !== undefined || this.#inTransaction);
  }

  /** @internal Destroys the connection instead of pooling it (the database is closing under a session never disposed). */
  discard(): void {
    this.#giveBack(true);
  }

  #giveBack(destroy: boolean): void {
    if (this.#released) return;
    this.#released = true;
    this.#database.returned(this);
    this.#connection.off("error", this.#onError);
    if (destroy) this.#connection.destroy();
    else this.#connection.release().catch(() => {});
  }

  async #run(sql: string, parameters: readonly unknown[]): Promise<unknown> {
    if (this.#released) throw connectionGivenBack();
    if (this.#lost !== undefined) throw mariaDbError(this.#lost);
    try {
      return await this.#connection.query({ sql, rowsAsArray: true }, parameters);
    } catch (error) {
      if (isConnectionLost(error)) this.#lost ??= error;
      throw mariaDbError(error);
    }
  }
}
