import type { PoolConnection } from "mariadb";
import type { DatabaseError } from "../../errors.js";
import { PooledConnection } from "../pooled-connection.js";
import type { RowCursor } from "../database.js";
import { MariaDbResultStream } from "./mariadb-cursor.js";
import type { MariaDbDatabase } from "./mariadb-database.js";
import { connectionGivenBack, isConnectionLost, isSqlError, mariaDbError, missingSequence } from "./mariadb-errors.js";

/** What the connector answers for a statement that returns no rows. */
interface UpsertResult {
  readonly affectedRows: number;
}

const errors = { isConnectionLost, wrap: mariaDbError, givenBack: connectionGivenBack };

/** One pooled connector connection lent to one session. */
export class MariaDbConnection extends PooledConnection<unknown> {
  readonly #database: MariaDbDatabase;
  readonly #connection: PoolConnection;

  /** @internal sessions get connections from `MariaDbDatabase.acquire()`. */
  constructor(database: MariaDbDatabase, connection: PoolConnection) {
    let onError: ((error: unknown) => void) | undefined;
    const listener = (error: unknown): void => onError?.(error);
    super(
      {
        send: (sql, parameters) => connection.query({ sql, rowsAsArray: true }, parameters),
        giveBack: (destroy) => {
          if (destroy) connection.destroy();
          else connection.release().catch(() => {});
        },
        listen: (handler) => {
          onError = handler;
          if (handler === undefined) connection.off("error", listener);
          else connection.on("error", listener);
        },
        cancel: () => (connection.threadId === null ? Promise.resolve() : database.killQuery(connection.threadId)),
      },
      errors,
      "START TRANSACTION",
      (pooled) => database.returned(pooled as MariaDbConnection),
    );
    this.#database = database;
    this.#connection = connection;
  }

  /**
   * @inheritdoc The connector's result stream (`queryStream`) in a read-only transaction (`START TRANSACTION READ
   * ONLY`): InnoDB reads the whole result in one snapshot, and the paused socket holds the server back between
   * batches. Closing it before the end stops the statement with KILL QUERY.
   */
  async openCursor(sql: string, parameters: readonly unknown[]): Promise<RowCursor> {
    await this.beginReadOnly();
    const connection = this.#connection;
    const result = new MariaDbResultStream(connection.queryStream({ sql, rowsAsArray: true }, parameters as unknown[]));
    const kill = (): Promise<void> => (connection.threadId === null ? Promise.resolve() : this.#database.killQuery(connection.threadId));
    let closing: Promise<void> | undefined;
    return {
      read: (count) => (closing === undefined ? this.guarded(() => result.take(count)) : Promise.resolve([])),
      close: () => {
        closing ??= result
          .stop(kill)
          .then(() => this.rollback())
          .catch(() => undefined);
        return closing;
      },
    };
  }

  /** @inheritdoc */
  async query(sql: string, parameters: readonly unknown[]): Promise<unknown[][]> {
    const rows = await this.run(sql, parameters);
    return Array.isArray(rows) ? (rows as unknown[][]) : [];
  }

  /** @inheritdoc */
  async execute(sql: string, parameters: readonly unknown[]): Promise<number> {
    const result = await this.run(sql, parameters, "write");
    return Array.isArray(result) ? result.length : Number((result as UpsertResult).affectedRows ?? 0);
  }

  /**
   * @inheritdoc One statement per 10,000 keys, over the server's SEQUENCE engine (`seq_1_to_10000`); where
   * that engine is not there, one `NEXTVAL` per key.
   */
  async nextIds(sequence: string, _table: string, _keyColumn: string, count: number): Promise<number[]> {
    const name = this.#database.dialect.quoteIdentifier(sequence);
    const keys: number[] = [];
    try {
      while (keys.length < count) {
        const rows = await this.query(`SELECT NEXTVAL(${name}) FROM seq_1_to_10000 WHERE seq <= ?`, [Math.min(10000, count - keys.length)]);
        for (const row of rows) keys.push(Number(row[0]));
      }
    } catch (error) {
      const cause = (error as DatabaseError).cause;
      if (!(isSqlError(cause) && [1146, 4089, 4091].includes(cause.errno))) throw error;
      // No SEQUENCE engine (or no such sequence: nextId names it): one key at a time.
      while (keys.length < count) keys.push(await this.nextId(sequence));
    }
    return keys;
  }

  /** @inheritdoc */
  async nextId(sequence: string): Promise<number> {
    const name = this.#database.dialect.quoteIdentifier(sequence);
    try {
      await this.#database.checkSequence(this, name);
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
}
