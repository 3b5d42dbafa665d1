import type { Dialect } from "../sql/dialect.js";

/** The default statement timeout of the server engines, in milliseconds (`statementTimeout` in their options). */
export const defaultStatementTimeout = 30_000;

/**
 * The rows of one query, read a batch at a time as the reader asks for them (`Connection.openCursor`), so that a
 * result of any size takes the memory of one batch: the engine holds the rest (a server-side cursor, a paused
 * result stream, a statement being stepped).
 */
export interface RowCursor {
  /** The next rows, each an array of column values in SELECT order: `count` of them, fewer only at the end (none once every row was read). */
  read(count: number): Promise<unknown[][]>;
  /**
   * Ends the query: a statement still running on the server is stopped (PostgreSQL: a cancel request;
   * MariaDB: KILL QUERY) and the cursor's snapshot is let go. Resolves when the connection can be released;
   * never rejects; a second call does nothing.
   */
  close(): Promise<void>;
}

/** One connection taken from a database's pool, used by one session at a time. */
export interface Connection {
  /**
   * Runs a query and answers its rows, each an array of column values in SELECT order. `exactIntegers`
   * false tells an engine that no selected column needs integers beyond 2^53 (the embedded engine then
   * skips reading every integer as a bigint); the default is true.
   */
  query(sql: string, parameters: readonly unknown[], exactIntegers?: boolean): Promise<unknown[][]>;
  /**
   * Runs a query at once and answers its rows, when the engine runs statements synchronously and nothing
   * makes this one wait (another session's transaction on the embedded engine); undefined means "use
   * `query`". A statement that fails throws. Optional: engines that talk to a server leave it out.
   * @internal A fast path, not public API.
   */
  queryNow?(sql: string, parameters: readonly unknown[], exactIntegers?: boolean): unknown[][] | undefined;
  /**
   * Runs several queries at once in one snapshot (one read transaction when none is open) and answers the
   * rows of each, when the engine runs statements synchronously and nothing makes them wait; undefined means
   * "not now". Optional: the embedded engine's way to read a list's count and page together.
   * @internal A fast path, not public API.
   */
  queryAllNow?(
    queries: readonly { readonly sql: string; readonly parameters: readonly unknown[]; readonly exactIntegers?: boolean }[],
  ): unknown[][][] | undefined;
  /** Runs a statement and answers the number of rows it changed. */
  execute(sql: string, parameters: readonly unknown[]): Promise<number>;
  /** Starts a transaction. */
  begin(): Promise<void>;
  /** Commits the transaction. */
  commit(): Promise<void>;
  /** Rolls the transaction back. */
  rollback(): Promise<void>;
  /** Answers the next primary key for a table (a real sequence that already exists, or on SQLite a key table in the file: docs/engines.md). */
  nextId(sequence: string, table: string, keyColumn: string): Promise<number>;
  /**
   * Answers `count` next primary keys at once (one round trip where the engine can). Optional: without it the
   * session calls `nextId` `count` times.
   */
  nextIds?(sequence: string, table: string, keyColumn: string, count: number): Promise<number[]>;
  /** Gives the connection back to its pool. */
  release(): void;
  /**
   * Opens a cursor on a query, read in a read-only snapshot of its own (one statement, or a read-only
   * transaction where the engine has one): PostgreSQL a server-side cursor, MariaDB a result stream that
   * holds the server back while the reader pauses, SQLite a statement stepped row by row on a read-only
   * connection of its own. The connection serves the cursor alone until `close`, then is released as usual.
   * Optional: a session reads the whole result with `query` where it is missing.
   */
  openCursor?(sql: string, parameters: readonly unknown[], exactIntegers?: boolean): Promise<RowCursor>;
  /**
   * Asks the server to stop the statement this connection is running now, if any (its client has gone);
   * the statement then fails with a timeout-kind `TransientDatabaseError`. Resolves when the request was
   * sent; never rejects. Optional: the embedded engine, whose statements run synchronously, has none.
   */
  cancel?(): Promise<void>;
}

/** A database that sessions draw connections from: a pool, or the embedded engine's one connection. */
export interface Database {
  /** The engine's SQL dialect. */
  readonly dialect: Dialect;
  /** Takes a connection; the session releases it when it is disposed. */
  acquire(): Promise<Connection>;
  /**
   * Takes a connection at once when one is free without waiting (the embedded engine's shared connection),
   * or answers undefined; a session then calls `acquire`. Saves a promise round on every session's first
   * statement. Optional.
   * @internal A fast path, not public API.
   */
  acquireNow?(): Connection | undefined;
  /**
   * How full the pool is now: connections lent to sessions, idle in the pool, and sessions waiting for one
   * (for metrics). Optional: the embedded engine, with its one shared connection, has none.
   */
  poolFigures?(): { readonly inUse: number; readonly idle: number; readonly waiting: number };
  /**
   * Calls `onNotify` whenever a transaction that wrote change records commits, in any process, through a
   * connection of its own kept for it; answers how to stop. Optional: an engine without notifications has
   * none, and the change feed's readers poll. A lost listening connection is not reopened (polling goes on).
   */
  listenForChanges?(onNotify: () => void): Promise<() => Promise<void>>;
  /** Closes every connection. Call it on every path that ends the process, after the server has stopped. */
  close(): Promise<void>;
}
