import type { Connection } from "../engines/database.js";
import type { StatementObserver } from "../observation/statement-observer.js";

/** A query of `Connection.queryAllNow`. */
type NowQuery = { readonly sql: string; readonly parameters: readonly unknown[]; readonly exactIntegers?: boolean };

/**
 * A connection whose statements are reported to a `StatementObserver` (start, end, failure). A session wraps
 * its connection in one only while an observer is registered, so an unobserved session pays nothing; an
 * observed one pays one object per session and no closure but the promise callbacks of its statements
 * (`ObservedSyncConnection` adds the embedded engine's synchronous paths on the prototype).
 */
export class ObservedConnection implements Connection {
  /** The engine's connection. */
  protected readonly connection: Connection;
  /** Where its statements are reported. */
  protected readonly observer: StatementObserver;
  /** The engine's name (its dialect's), reported with each statement. */
  protected readonly system: string;
  /** @inheritdoc */
  readonly nextIds?: Connection["nextIds"];

  /**
   * @param connection the engine's connection. @param observer where its statements are reported.
   * @param system the engine's name (its dialect's), reported with each statement.
   */
  constructor(connection: Connection, observer: StatementObserver, system: string) {
    this.connection = connection;
    this.observer = observer;
    this.system = system;
    // present exactly when the engine has it: the session draws keys one by one otherwise
    if (connection.nextIds !== undefined) this.nextIds = connection.nextIds.bind(connection);
  }

  /** @inheritdoc */
  query(sql: string, parameters: readonly unknown[], exactIntegers?: boolean): Promise<unknown[][]> {
    const token = this.observer.statementStarted(sql, this.system);
    let pending: Promise<unknown[][]>;
    try {
      pending = this.connection.query(sql, parameters, exactIntegers);
    } catch (error) {
      this.observer.statementEnded(token, error);
      throw error;
    }
    return this.#reported(pending, token);
  }

  /** @inheritdoc */
  execute(sql: string, parameters: readonly unknown[]): Promise<number> {
    const token = this.observer.statementStarted(sql, this.system);
    let pending: Promise<number>;
    try {
      pending = this.connection.execute(sql, parameters);
    } catch (error) {
      this.observer.statementEnded(token, error);
      throw error;
    }
    return this.#reported(pending, token);
  }

  #reported<R>(pending: Promise<R>, token: unknown): Promise<R> {
    const observer = this.observer;
    return pending.then(
      (value) => {
        observer.statementEnded(token, undefined);
        return value;
      },
      (error: unknown) => {
        observer.statementEnded(token, error);
        throw error;
      },
    );
  }

  /** @inheritdoc */
  begin(): Promise<void> {
    return this.connection.begin();
  }

  /** @inheritdoc */
  commit(): Promise<void> {
    return this.connection.commit();
  }

  /** @inheritdoc */
  rollback(): Promise<void> {
    return this.connection.rollback();
  }

  /** @inheritdoc */
  nextId(sequence: string, table: string, keyColumn: string): Promise<number> {
    return this.connection.nextId(sequence, table, keyColumn);
  }

  /** @inheritdoc */
  cancel(): Promise<void> {
    return this.connection.cancel?.() ?? Promise.resolve();
  }

  /** @inheritdoc */
  release(): void {
    this.connection.release();
  }
}

/** An observed connection of an engine that runs statements synchronously (`Connection.queryNow`). */
export class ObservedSyncConnection extends ObservedConnection {
  /** @internal A fast path, not API (see `Connection.queryNow`). */
  queryNow(sql: string, parameters: readonly unknown[], exactIntegers?: boolean): unknown[][] | undefined {
    const observer = this.observer;
    const token = observer.statementStarted(sql, this.system);
    let rows: unknown[][] | undefined;
    try {
      rows = this.connection.queryNow!(sql, parameters, exactIntegers);
    } catch (error) {
      observer.statementEnded(token, error);
      throw error;
    }
    // undefined: the engine could not run it now, and `query` will run (and report) it; the token is dropped
    if (rows !== undefined) observer.statementEnded(token, undefined);
    return rows;
  }

  /**
   * @internal A fast path, not API (see `Connection.queryOneNow`): the engine's own, or the first row of `queryNow`.
   * The statement reported is the plain one, `sql`, whichever form the engine runs.
   */
  queryOneNow(sql: string, parameters: readonly unknown[], exactIntegers?: boolean, packedSql?: string): unknown[] | null | undefined {
    const connection = this.connection;
    if (connection.queryOneNow === undefined) {
      const rows = this.queryNow(sql, parameters, exactIntegers);
      return rows === undefined ? undefined : rows.length === 0 ? null : (rows[0] as unknown[]);
    }
    const observer = this.observer;
    const token = observer.statementStarted(sql, this.system);
    let row: unknown[] | null | undefined;
    try {
      row = connection.queryOneNow(sql, parameters, exactIntegers, packedSql);
    } catch (error) {
      observer.statementEnded(token, error);
      throw error;
    }
    // undefined: the engine could not run it now, and `query` will run (and report) it; the token is dropped
    if (row !== undefined) observer.statementEnded(token, undefined);
    return row;
  }

  /** @internal A fast path, not API (see `Connection.executeNow`). */
  executeNow(sql: string, parameters: readonly unknown[]): number | undefined {
    const connection = this.connection;
    if (connection.executeNow === undefined) return undefined;
    const observer = this.observer;
    const token = observer.statementStarted(sql, this.system);
    let changed: number | undefined;
    try {
      changed = connection.executeNow(sql, parameters);
    } catch (error) {
      observer.statementEnded(token, error);
      throw error;
    }
    // undefined: the engine could not run it now, and `execute` will run (and report) it; the token is dropped
    if (changed !== undefined) observer.statementEnded(token, undefined);
    return changed;
  }

  /** @internal A fast path, not API (see `Connection.nextIdNow`); not reported, as `nextId` is not. */
  nextIdNow(sequence: string, table: string, keyColumn: string): number | undefined {
    return this.connection.nextIdNow?.(sequence, table, keyColumn);
  }

  /** @internal A fast path, not API (see `Connection.queryAllNow`). */
  queryAllNow(queries: readonly NowQuery[]): unknown[][][] | undefined {
    const connection = this.connection;
    if (connection.queryAllNow === undefined) return undefined;
    const observer = this.observer;
    const tokens = queries.map((query) => observer.statementStarted(query.sql, this.system));
    let results: unknown[][][] | undefined;
    try {
      results = connection.queryAllNow(queries);
    } catch (error) {
      for (const token of tokens) observer.statementEnded(token, error);
      throw error;
    }
    if (results !== undefined) for (const token of tokens) observer.statementEnded(token, undefined);
    return results;
  }
}

/** `connection` wrapped to report its statements to `observer`, with the synchronous paths where the engine has them. */
export function observeConnection(connection: Connection, observer: StatementObserver, system: string): Connection {
  return connection.queryNow === undefined
    ? new ObservedConnection(connection, observer, system)
    : new ObservedSyncConnection(connection, observer, system);
}
