import type { Connection } from "../engines/database.js";
import type { StatementObserver } from "../observation/statement-observer.js";

/**
 * A connection whose statements are reported to a `StatementObserver` (start, end, failure). A session wraps
 * its connection in one only while an observer is registered, so an unobserved session pays nothing.
 */
export class ObservedConnection implements Connection {
  readonly #connection: Connection;
  readonly #observer: StatementObserver;
  readonly #system: string;
  /** @internal A fast path, not API (see `Connection.queryNow`). */
  readonly queryNow?: Connection["queryNow"];
  /** @internal A fast path, not API (see `Connection.queryAllNow`). */
  readonly queryAllNow?: Connection["queryAllNow"];
  /** @inheritdoc */
  readonly nextIds?: Connection["nextIds"];
  /** @inheritdoc */
  readonly cancel?: Connection["cancel"];

  /**
   * @param connection the engine's connection. @param observer where its statements are reported.
   * @param system the engine's name (its dialect's), reported with each statement.
   */
  constructor(connection: Connection, observer: StatementObserver, system: string) {
    this.#connection = connection;
    this.#observer = observer;
    this.#system = system;
    if (connection.queryNow !== undefined)
      this.queryNow = (sql, parameters, exactIntegers) => this.#queryNow(sql, parameters, exactIntegers);
    if (connection.queryAllNow !== undefined) this.queryAllNow = (queries) => this.#queryAllNow(queries);
    if (connection.nextIds !== undefined) this.nextIds = (...args) => connection.nextIds!(...args);
    if (connection.cancel !== undefined) this.cancel = () => connection.cancel!();
  }

  /** @inheritdoc */
  query(sql: string, parameters: readonly unknown[], exactIntegers?: boolean): Promise<unknown[][]> {
    return this.#observed(sql, () => this.#connection.query(sql, parameters, exactIntegers));
  }

  /** @inheritdoc */
  execute(sql: string, parameters: readonly unknown[]): Promise<number> {
    return this.#observed(sql, () => this.#connection.execute(sql, parameters));
  }

  #queryNow(sql: string, parameters: readonly unknown[], exactIntegers?: boolean): unknown[][] | undefined {
    const observer = this.#observer;
    const token = observer.statementStarted(sql, this.#system);
    let rows: unknown[][] | undefined;
    try {
      rows = this.#connection.queryNow!(sql, parameters, exactIntegers);
    } catch (error) {
      observer.statementEnded(token, error);
      throw error;
    }
    // undefined: the engine could not run it now, and `query` will run (and report) it; the token is dropped
    if (rows !== undefined) observer.statementEnded(token, undefined);
    return rows;
  }

  #queryAllNow(
    queries: readonly { readonly sql: string; readonly parameters: readonly unknown[]; readonly exactIntegers?: boolean }[],
  ): unknown[][][] | undefined {
    const observer = this.#observer;
    const tokens = queries.map((query) => observer.statementStarted(query.sql, this.#system));
    let results: unknown[][][] | undefined;
    try {
      results = this.#connection.queryAllNow!(queries);
    } catch (error) {
      for (const token of tokens) observer.statementEnded(token, error);
      throw error;
    }
    if (results !== undefined) for (const token of tokens) observer.statementEnded(token, undefined);
    return results;
  }

  #observed<R>(sql: string, run: () => Promise<R>): Promise<R> {
    const observer = this.#observer;
    const token = observer.statementStarted(sql, this.#system);
    let pending: Promise<R>;
    try {
      pending = run();
    } catch (error) {
      observer.statementEnded(token, error);
      throw error;
    }
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
    return this.#connection.begin();
  }

  /** @inheritdoc */
  commit(): Promise<void> {
    return this.#connection.commit();
  }

  /** @inheritdoc */
  rollback(): Promise<void> {
    return this.#connection.rollback();
  }

  /** @inheritdoc */
  nextId(sequence: string, table: string, keyColumn: string): Promise<number> {
    return this.#connection.nextId(sequence, table, keyColumn);
  }

  /** @inheritdoc */
  release(): void {
    this.#connection.release();
  }
}
