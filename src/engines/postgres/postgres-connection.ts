import type pg from "pg";
import { EngineMessages } from "../engine-messages.js";
import type { DatabaseError } from "../../errors.js";
import { PooledConnection, type PooledConnectionErrors } from "../pooled-connection.js";
import { type BackendKey, sendCancelRequest } from "./postgres-cancel.js";
import { declareCursorSql, fetchSql, PostgresCursor } from "./postgres-cursor.js";
import type { RowCursor } from "../database.js";
import type { PostgresDatabase } from "./postgres-database.js";
import { connectionGivenBack, isConnectionLost, missingSequence, postgresError, sqlState } from "./postgres-errors.js";

const errors = { isConnectionLost, wrap: postgresError, givenBack: connectionGivenBack };

/** What Tenon reads of a `pg` result in array mode: structural, so that the declarations need no `pg` types. */
interface PostgresResult {
  readonly rows: readonly unknown[];
  readonly rowCount: number | null;
}

/**
 * Sends a statement through `pg`'s callback form, not its promise form (`client.query(config)` without a callback).
 * Measured on Node 20: the rows of a query sent through the promise form survive the young generation's
 * collections and reach the old one, about a third of what reading them allocates (PostgreSQL's cursor FETCH
 * promoted 3 MiB for every 10 MiB allocated; the callback form promotes nothing), so that an export of 10^6 rows
 * grew the old generation by 30 MiB and more between full collections (docs/crud.md "Streamed answers").
 */
function sendWithCallback(client: pg.PoolClient, config: pg.QueryArrayConfig): Promise<PostgresResult> {
  return new Promise((resolve, reject) => {
    client.query<unknown[]>(config, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/**
 * How a connection to one server of several (a multi-host database) words its failures and reports its server
 * failing, so that the database looks for the primary again. @internal
 */
export interface ServerWatch {
  /** The errors of a connection to this server (`clusterError`). */
  readonly errors: PooledConnectionErrors;
  /** A statement failed on this server. */
  failed(error: unknown): void;
}

/** One pooled `pg` client lent to one session. */
export class PostgresConnection extends PooledConnection<PostgresResult> {
  readonly #database: PostgresDatabase;

  /**
   * @internal sessions get connections from `PostgresDatabase.acquire()`. `watch`: the connection is to one
   * server of several.
   */
  constructor(database: PostgresDatabase, client: pg.PoolClient, watch?: ServerWatch) {
    let onError: ((error: unknown) => void) | undefined;
    const listener = (error: unknown): void => onError?.(error);
    const send = (sql: string, parameters: readonly unknown[]): Promise<PostgresResult> =>
      sendWithCallback(client, {
        text: sql,
        values: parameters as unknown[],
        rowMode: "array",
        name: database.statementName(sql, parameters.length),
      });
    super(
      {
        send:
          watch === undefined
            ? send
            : (sql, parameters) =>
                send(sql, parameters).catch((error: unknown) => {
                  watch.failed(error);
                  throw error;
                }),
        giveBack: (close) => client.release(close ? new Error(EngineMessages.closedInsteadOfPooled) : undefined),
        listen: (handler) => {
          onError = handler;
          if (handler === undefined) client.off("error", listener);
          else client.on("error", listener);
        },
        cancel: () => sendCancelRequest(client as unknown as BackendKey),
      },
      watch?.errors ?? errors,
      "BEGIN",
      (connection) => database.returned(connection as PostgresConnection),
    );
    this.#database = database;
  }

  /** @inheritdoc */
  async query(sql: string, parameters: readonly unknown[]): Promise<unknown[][]> {
    return (await this.run(sql, parameters)).rows as unknown[][];
  }

  /** @inheritdoc */
  async execute(sql: string, parameters: readonly unknown[]): Promise<number> {
    return (await this.run(sql, parameters, "write")).rowCount ?? 0;
  }

  /**
   * @inheritdoc A server-side cursor declared in a read-only transaction (`BEGIN READ ONLY`, `DECLARE ... NO SCROLL
   * CURSOR`), read with `FETCH FORWARD`: one snapshot for the whole result, the rows held by the server.
   */
  async openCursor(sql: string, parameters: readonly unknown[]): Promise<RowCursor> {
    await this.beginReadOnly();
    try {
      await this.run(declareCursorSql(sql), parameters);
    } catch (error) {
      await this.rollback().catch(() => undefined);
      throw error;
    }
    return new PostgresCursor({
      fetch: async (count) => (await this.run(fetchSql(count), [])).rows as unknown[][],
      cancel: () => this.cancel(),
      end: () => this.rollback(),
    });
  }

  /** @inheritdoc */
  async nextIds(sequence: string, _table: string, _keyColumn: string, count: number): Promise<number[]> {
    const name = this.#database.dialect.quoteIdentifier(sequence);
    try {
      const rows = await this.query(`SELECT nextval('${name.replaceAll("'", "''")}') FROM generate_series(1, $1)`, [count]);
      return rows.map((row) => Number(row[0]));
    } catch (error) {
      const cause = (error as DatabaseError).cause;
      if (sqlState(cause) === "42P01") throw missingSequence(name, cause);
      throw error;
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
}
