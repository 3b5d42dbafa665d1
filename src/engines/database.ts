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
   * `queryNow` of a query that selects at most one row (by primary key): the row, or null when there is none,
   * without the list of rows around it; undefined as in `queryNow`. `packedSql`, when given, is the same query
   * with the row packed as one JSON array text (`Dialect.packRow`), which the engine may run instead where its
   * driver reads one text faster than a row of values; the answer is the same row. Optional: without it the
   * session calls `queryNow`.
   * @internal A fast path, not public API.
   */
  queryOneNow?(sql: string, parameters: readonly unknown[], exactIntegers?: boolean, packedSql?: string): unknown[] | null | undefined;
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
  /**
   * Runs a statement at once and answers the number of rows it changed, when the engine runs statements
   * synchronously and nothing makes this one wait (as `queryNow`); undefined means "use `execute`". A statement
   * that fails throws. Optional: engines that talk to a server leave it out.
   * @internal A fast path, not public API.
   */
  executeNow?(sql: string, parameters: readonly unknown[]): number | undefined;
  /** Starts a transaction. */
  begin(): Promise<void>;
  /** Commits the transaction. */
  commit(): Promise<void>;
  /** Rolls the transaction back. */
  rollback(): Promise<void>;
  /** Answers the next primary key for a table (a real sequence that already exists, or on SQLite a key table in the file: docs/engines.md). */
  nextId(sequence: string, table: string, keyColumn: string): Promise<number>;
  /**
   * `nextId` at once, when the engine runs statements synchronously and nothing makes this one wait (as
   * `queryNow`); undefined means "use `nextId`". Optional: engines that talk to a server leave it out.
   * @internal A fast path, not public API.
   */
  nextIdNow?(sequence: string, table: string, keyColumn: string): number | undefined;
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
   * (for metrics); with read replicas also what the routing saw and counted. Optional: the embedded engine,
   * with its one shared connection, has none.
   */
  poolFigures?(): PoolSnapshot;
  /**
   * Calls `onNotify` whenever a transaction that wrote change records commits, in any process, through a
   * connection of its own kept for it; answers how to stop. Optional: an engine without notifications has
   * none, and the change feed's readers poll. A lost listening connection is not reopened (polling goes on).
   */
  listenForChanges?(onNotify: () => void): Promise<() => Promise<void>>;
  /**
   * Where the reads of a session may go other than to the connection that writes (read replicas), and the
   * consistency tokens that let a later session read at least as new as a write. Optional: a database without
   * replicas or tokens has none, and its sessions pay nothing for it (docs/scaling.md, "Read replicas").
   */
  readonly readRouting?: ReadRouting;
  /** Closes every connection. Call it on every path that ends the process, after the server has stopped. */
  close(): Promise<void>;
}

/** How full a database's pool is at one moment, and with read replicas what their routing saw (`Database.poolFigures`). */
export interface PoolSnapshot {
  /** Connections lent to sessions. */
  readonly inUse: number;
  /** Open connections waiting in the pool. */
  readonly idle: number;
  /** Sessions waiting for a connection. */
  readonly waiting: number;
  /** With read replicas: reads per target, consistency waits, failovers noticed, and each server's lag. */
  readonly replicas?: ReplicaFigures;
}

/** What the routing of a database with read replicas saw and counted since it opened. */
export interface ReplicaFigures {
  /** Read statements of sessions, by where they ran. */
  readonly reads: { readonly replica: number; readonly primary: number };
  /**
   * Reads that carried a consistency token, by outcome: served by a replica that had replayed past it at once
   * (`replica`), after waiting for one (`waited`), or by the primary when none did in time (`primary`).
   */
  readonly consistencyWaits: { readonly replica: number; readonly waited: number; readonly primary: number };
  /** Times the primary was found on another server than before. */
  readonly failovers: number;
  /** Each server as the last check found it. */
  readonly servers: readonly {
    /** `host:port`. */
    readonly address: string;
    /** `primary`, `replica`, or `unreachable`. */
    readonly role: string;
    /** Seconds a replica is behind the primary (0 for the others). */
    readonly lagSeconds: number;
    /** Whether reads go to it. */
    readonly inRotation: boolean;
  }[];
}

/** Where a read was served: by a replica, or by the primary (the server that takes the writes). */
export type ReadTarget = "replica" | "primary";

/**
 * The read replicas of a database, as sessions use them: a session that has not written and is not in a
 * transaction may read through `acquireRead`; after a write it reads through its own connection to the
 * primary. A consistency token (`tokenAfterWrite`) names a point in the primary's history; a read given one
 * is served by a replica that has replayed past it, or, after a bounded wait, by the primary.
 */
export interface ReadRouting {
  /** Whether sessions read from replicas unless they say otherwise (the database's option; default false). */
  readonly byDefault: boolean;
  /**
   * A replica's connection for reads at least as new as `after` (a token `parseToken` accepted; undefined: any
   * replica in rotation); undefined when no replica serves (none in rotation, or none reached `after` in time):
   * the session then reads through its own connection to the primary.
   */
  acquireRead(after: string | undefined): Promise<Connection | undefined>;
  /**
   * The token of everything committed through `connection` (a session's connection to the primary, after its
   * writes committed); undefined when it cannot be read now. Never rejects: the writes are committed already.
   */
  tokenAfterWrite(connection: Connection): Promise<string | undefined>;
  /** A token as a client sent it back, checked: its normal form, or undefined when it is not a token of this engine. */
  parseToken(text: string): string | undefined;
  /**
   * Makes the reads of a session's own connection at least as new as `after`, before its first read: on a
   * cluster where every node takes writes (Galera), the session's node waits until it has applied that write;
   * rejects with a `TransientDatabaseError` when it has not in a bounded time. Optional: where the session's own
   * connection is the primary's, its reads are that new anyway.
   */
  waitFor?(connection: Connection, after: string): Promise<void>;
  /** Counts one read statement of a session and where it ran (for metrics). */
  countRead(target: ReadTarget): void;
}
