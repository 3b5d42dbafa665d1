import type pg from "pg";
import type { DatabaseError } from "../../errors.js";
import type { Connection } from "../database.js";
import type { PostgresDatabase } from "./postgres-database.js";
import { connectionGivenBack, isConnectionLost, missingSequence, postgresError, sqlState } from "./postgres-errors.js";

/** One pooled `pg` client lent to one session. */
export class PostgresConnection implements Connection {
  readonly #database: PostgresDatabase;
  readonly #client: pg.PoolClient;
  /** Set when the connection broke: it is then closed on release, never pooled again. */
  #lost: unknown;
  #inTransaction = false;
  #released = false;
  readonly #onError = (error: unknown): void => {
    this.#lost ??= error;
  };

  /** @internal sessions get connections from `PostgresDatabase.acquire()`. */
  constructor(database: PostgresDatabase, client: pg.PoolClient) {
    this.#database = database;
    this.#client = client;
    // A checked-out client whose backend dies emits "error"; unheard, that would end the process.
    client.on("error", this.#onError);
  }

  /** @inheritdoc */
  async query(sql: string, parameters: readonly unknown[]): Promise<unknown[][]> {
    const result = await this.#run(sql, parameters);
    return result.rows as unknown[][];
  }

  /** @inheritdoc */
  async execute(sql: string, parameters: readonly unknown[]): Promise<number> {
    const result = await this.#run(sql, parameters);
    return result.rowCount ?? 0;
  }

  /** @inheritdoc */
  async begin(): Promise<void> {
    await this.#run("BEGIN", []);
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
      const rows = await this.query(`SELECT nextval('${name.replaceAll("'", "''")}')`, []);
      return Number(rows[0][0]);
    } catch (error) {
      const cause = (error as DatabaseError).cause;
      if (sqlState(cause) === "42P01") {
        throw missingSequence(name, cause);
      }
      throw error;
    }
  }

  /** @inheritdoc */
  release(): void {
    // A broken connection, or one left inside a transaction, is closed rather than handed to the next session.
    this.#giveBack(this.#lost !== undefined || this.#inTransaction);
  }

  /** @internal Closes the connection instead of pooling it (the database is closing under a session never disposed). */
  discard(): void {
    this.#giveBack(true);
  }

  #giveBack(close: boolean): void {
    if (this.#released) return;
    this.#released = true;
    this.#database.returned(this);
    this.#client.off("error", this.#onError);
    this.#client.release(close ? new Error("Tenon: connection closed instead of pooled") : undefined);
  }

  async #run(sql: string, parameters: readonly unknown[]): Promise<pg.QueryResult<unknown[]>> {
    if (this.#released) throw connectionGivenBack();
    if (this.#lost !== undefined) throw postgresError(this.#lost);
    try {
      return await this.#client.query<unknown[]>({
        text: sql,
        values: parameters as unknown[],
        rowMode: "array",
        name: this.#database.statementName(sql, parameters.length),
      });
    } catch (error) {
      if (isConnectionLost(error)) this.#lost ??= error;
      throw postgresError(error);
    }
  }
}
