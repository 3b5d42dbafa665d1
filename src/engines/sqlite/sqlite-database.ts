import { EngineMessages } from "../engine-messages.js";
import { DatabaseError } from "../../errors.js";
import type { Connection, Database, RowCursor } from "../database.js";
import { ArrayCursor } from "../array-cursor.js";
import { SqliteCursor } from "./sqlite-cursor.js";
import { Mutex } from "../mutex.js";
import { SqliteDialect } from "./sqlite-dialect.js";
import { openSqlite, type SqliteDriverName, type SqliteHandle, type SqliteStatement } from "./sqlite-driver.js";
import { sqliteError } from "./sqlite-errors.js";
import { type KeyStatements, SqliteKeys } from "./sqlite-keys.js";

/** How to open the embedded SQLite engine. */
export interface SqliteOptions {
  /** The database file (created when missing), or `:memory:`. */
  readonly filename: string;
  /**
   * A name for the database in messages; defaults to the file name. (Keys no longer depend on it: they are
   * kept in the file's `tenon_keys` table, shared by every connection and process on the file.)
   */
  readonly name?: string;
  /** Use write-ahead logging (default true for files): readers in other processes do not block the writer. */
  readonly wal?: boolean;
  /** Milliseconds to wait for another process's lock (default 5000). */
  readonly busyTimeout?: number;
  /**
   * The SQLite library: `"better-sqlite3"` (a compiled addon) or `"node:sqlite"` (built into Node.js 22.16
   * and later). Default: `node:sqlite` on Node.js 24 and later; on Node.js 20 and 22 better-sqlite3 when it is
   * installed and loads, else `node:sqlite` where the line has it (22.16 and later). better-sqlite3 before 13 is not
   * loaded on Node.js 24.19 and later 24.x, where it aborts the process when a statement is garbage-collected
   * (docs/engines.md). Naming a driver this line or install lacks fails with a `DatabaseError` that says so.
   */
  readonly driver?: SqliteDriverName;
}

type Statement = SqliteStatement;

/**
 * The embedded engine over one SQLite connection (better-sqlite3 or `node:sqlite`, see `SqliteOptions.driver`)
 * shared by every session. Both drivers are synchronous, so a statement never interleaves with another; a transaction, which may await in the
 * middle, holds a lock that keeps every other session's statements out until it ends.
 */
export class SqliteDatabase implements Database {
  /** @inheritdoc */
  readonly dialect = new SqliteDialect();
  /** The database's name (see `SqliteOptions.name`). */
  readonly name: string;
  /** The SQLite library this database runs on. */
  readonly driver: SqliteDriverName;
  readonly #db: SqliteHandle;
  readonly #statements = new Map<string, Statement>();
  readonly #inexactStatements = new Map<string, Statement>();
  /** The packed queries (`Dialect.packRow`) prepared, by their text. */
  readonly #packedStatements = new Map<string, Statement>();
  /** Whether this database reads rows packed as JSON (see `readsPackedRows`). */
  readonly #readsPacked: boolean;
  readonly #lock = new Mutex();
  readonly #keys = new SqliteKeys(this.dialect);
  /** What the key allocator runs its statements through: this database's prepared statements. */
  readonly #keyStatements: KeyStatements = {
    get: (sql, parameters) => this.statement(sql).get(...parameters) as unknown[] | undefined,
    run: (sql, parameters) => {
      this.statement(sql).run(...parameters);
    },
  };
  readonly #filename: string;
  readonly #busyTimeout: number;
  #owner: SqliteConnection | undefined;

  /** Opens (and creates when missing) the file. */
  constructor(options: SqliteOptions) {
    this.name = options.name ?? options.filename;
    this.#filename = options.filename;
    this.#busyTimeout = Math.trunc(options.busyTimeout ?? 5000);
    this.#db = openSqlite(options.filename, options.driver);
    this.driver = this.#db.driver;
    try {
      this.#db.exec(`PRAGMA busy_timeout = ${this.#busyTimeout}`);
      if ((options.wal ?? true) && options.filename !== ":memory:") this.#db.exec("PRAGMA journal_mode = WAL");
      this.#db.exec("PRAGMA synchronous = NORMAL");
      this.#readsPacked = readsPackedRows(this.#db, this.dialect);
    } catch (error) {
      this.#db.close();
      throw new DatabaseError(EngineMessages.cannotOpenSqlite(options.filename, (error as Error).message), { cause: error });
    }
  }

  /** Runs SQL text with no parameters and no result (schema scripts). */
  exec(sql: string): void {
    this.#db.exec(sql);
  }

  /** @inheritdoc */
  acquire(): Promise<Connection> {
    return Promise.resolve(new SqliteConnection(this));
  }

  /** @internal A fast path, not API (see `Database.acquireNow`). */
  acquireNow(): Connection {
    return new SqliteConnection(this);
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    await this.#lock.idle();
    this.#db.close();
  }

  /** @internal Waits until `connection` may run a statement: it owns the transaction lock, or nobody does. */
  ready(connection: SqliteConnection): Promise<void> | undefined {
    return this.free(connection) ? undefined : this.#lock.idle().then(() => this.ready(connection));
  }

  /** @internal Whether `connection` may run a statement now (see `ready`). */
  free(connection: SqliteConnection): boolean {
    return this.#owner === connection || !this.#lock.isLocked;
  }

  /** @internal */
  async lock(connection: SqliteConnection): Promise<void> {
    await this.#lock.lock();
    this.#owner = connection;
  }

  /** @internal */
  unlock(connection: SqliteConnection): void {
    if (this.#owner !== connection) return;
    this.#owner = undefined;
    this.#lock.unlock();
  }

  /** @internal */
  owns(connection: SqliteConnection): boolean {
    return this.#owner === connection;
  }

  /** @internal The prepared statement of `sql`, reading integers as bigints when `exactIntegers`. */
  statement(sql: string, exactIntegers = true): Statement {
    const cache = exactIntegers ? this.#statements : this.#inexactStatements;
    let statement = cache.get(sql);
    if (statement === undefined) {
      statement = this.run(() => this.#db.prepare(sql, exactIntegers));
      if (cache.size > 2000) cache.clear();
      cache.set(sql, statement);
    }
    return statement;
  }

  /**
   * @internal The row a packed query (`Dialect.packRow`) selects, parsed, or null for none; undefined where this
   * database does not read packed rows, and where the packed query failed (a blob in a column the mapping does not
   * declare one, say), so that the plain query answers instead.
   */
  packedRow(sql: string, parameters: readonly unknown[]): unknown[] | null | undefined {
    if (!this.#readsPacked) return undefined;
    try {
      let statement = this.#packedStatements.get(sql);
      if (statement === undefined) {
        statement = (this.#db.preparePacked as (sql: string) => Statement)(sql);
        if (this.#packedStatements.size > 2000) this.#packedStatements.clear();
        this.#packedStatements.set(sql, statement);
      }
      const text = parameters.length === 1 ? statement.get(parameters[0]) : statement.get(...parameters);
      return text === undefined ? null : (JSON.parse(text as string) as unknown[]);
    } catch {
      return undefined;
    }
  }

  /**
   * @internal A cursor on `sql` for `owner`: on a file, a statement stepped on a read-only connection of its own
   * (`SqliteCursor`), which waits for no transaction of the shared connection. Undefined on an in-memory
   * database, which no second connection can open, and inside `owner`'s own transaction, whose uncommitted rows
   * only the shared connection sees: the caller then reads the whole result at once.
   */
  openCursor(owner: SqliteConnection, sql: string, parameters: readonly unknown[], exactIntegers: boolean): RowCursor | undefined {
    if (this.#filename === ":memory:" || this.#filename === "" || this.owns(owner)) return undefined;
    const handle = this.run(() => openSqlite(this.#filename, this.driver, true));
    try {
      return this.run(() => {
        handle.exec(`PRAGMA busy_timeout = ${this.#busyTimeout}`);
        return new SqliteCursor(handle, handle.prepare(sql, exactIntegers).iterate(...parameters));
      });
    } catch (error) {
      handle.close();
      throw error;
    }
  }

  /** @internal */
  run<R>(action: () => R): R {
    try {
      return action();
    } catch (error) {
      // A statement that failed to prepare inside `action` is already a DatabaseError: not wrapped twice.
      throw sqliteError(error);
    }
  }

  /**
   * @internal The next key of `table`: from this database's reserved block, or from a new block reserved in
   * the file's key table (see `SqliteKeys`). Inside `owner`'s transaction, which began IMMEDIATE and so
   * already holds the file's write lock, the reservation runs there; otherwise in a write transaction of its
   * own, so that another process reserving at the same time waits for it.
   */
  nextId(owner: SqliteConnection, table: string, keyColumn: string): number {
    const statements = this.#keyStatements;
    const reserved = this.#keys.fromBlock(statements, table);
    if (reserved !== undefined) return reserved;
    if (this.owns(owner)) return this.#keys.reserve(statements, table, keyColumn);
    this.statement("BEGIN IMMEDIATE").run();
    try {
      const key = this.#keys.reserve(statements, table, keyColumn);
      this.statement("COMMIT").run();
      this.#keys.committed();
      return key;
    } catch (error) {
      this.rolledBack();
      try {
        this.statement("ROLLBACK").run();
      } catch {
        // the transaction is already gone
      }
      throw error;
    }
  }

  /** @internal A transaction was rolled back: a key table it created or a block it reserved may be gone with it. */
  rolledBack(): void {
    this.#keys.forget();
  }

  /** @internal A transaction committed: the blocks it reserved stay reserved. */
  committed(): void {
    this.#keys.committed();
  }
}

/** A session's handle on the shared SQLite connection. */
class SqliteConnection implements Connection {
  readonly #database: SqliteDatabase;

  constructor(database: SqliteDatabase) {
    this.#database = database;
  }

  query(sql: string, parameters: readonly unknown[], exactIntegers = true): Promise<unknown[][]> {
    const waiting = this.#database.ready(this);
    if (waiting !== undefined) return waiting.then(() => this.query(sql, parameters, exactIntegers));
    try {
      return Promise.resolve(this.#all(sql, parameters, exactIntegers));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** @internal A fast path, not API (see `Connection.queryNow`). */
  queryNow(sql: string, parameters: readonly unknown[], exactIntegers = true): unknown[][] | undefined {
    return this.#database.free(this) ? this.#all(sql, parameters, exactIntegers) : undefined;
  }

  /** @internal A fast path, not API (see `Connection.queryOneNow`). */
  queryOneNow(sql: string, parameters: readonly unknown[], exactIntegers = true, packedSql?: string): unknown[] | null | undefined {
    if (!this.#database.free(this)) return undefined;
    if (packedSql !== undefined) {
      const row = this.#database.packedRow(packedSql, parameters);
      if (row !== undefined) return row;
    }
    try {
      const statement = this.#database.statement(sql, exactIntegers);
      const row = parameters.length === 1 ? statement.get(parameters[0]) : statement.get(...parameters);
      return row === undefined ? null : (row as unknown[]);
    } catch (error) {
      throw sqliteError(error);
    }
  }

  /** @internal A fast path, not API (see `Connection.queryAllNow`). */
  queryAllNow(
    queries: readonly { readonly sql: string; readonly parameters: readonly unknown[]; readonly exactIntegers?: boolean }[],
  ): unknown[][][] | undefined {
    if (!this.#database.free(this)) return undefined;
    // A read transaction, so that another process's commit between the queries is not seen by the later ones.
    const own = !this.#database.owns(this);
    if (own) this.#database.run(() => this.#database.statement("BEGIN").run());
    try {
      return queries.map((query) => this.#all(query.sql, query.parameters, query.exactIntegers ?? true));
    } finally {
      if (own) this.#database.run(() => this.#database.statement("COMMIT").run());
    }
  }

  #all(sql: string, parameters: readonly unknown[], exactIntegers: boolean): unknown[][] {
    try {
      const statement = this.#database.statement(sql, exactIntegers);
      return (parameters.length === 1 ? statement.all(parameters[0]) : statement.all(...parameters)) as unknown[][];
    } catch (error) {
      throw sqliteError(error);
    }
  }

  /** @inheritdoc See `SqliteDatabase.openCursor`; where it has none, the whole result is read at once. */
  async openCursor(sql: string, parameters: readonly unknown[], exactIntegers = true): Promise<RowCursor> {
    return (
      this.#database.openCursor(this, sql, parameters, exactIntegers) ?? new ArrayCursor(await this.query(sql, parameters, exactIntegers))
    );
  }

  execute(sql: string, parameters: readonly unknown[]): Promise<number> {
    const waiting = this.#database.ready(this);
    if (waiting !== undefined) return waiting.then(() => this.execute(sql, parameters));
    try {
      return Promise.resolve(this.#database.run(() => Number(this.#database.statement(sql).run(...parameters).changes)));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** @internal A fast path, not API (see `Connection.executeNow`). */
  executeNow(sql: string, parameters: readonly unknown[]): number | undefined {
    if (!this.#database.free(this)) return undefined;
    return this.#database.run(() => Number(this.#database.statement(sql).run(...parameters).changes));
  }

  async begin(): Promise<void> {
    await this.#database.lock(this);
    try {
      // IMMEDIATE takes the file's write lock now, waiting up to busyTimeout for another process, instead of
      // at the first write, where a transaction that has read in WAL mode fails with SQLITE_BUSY at once
      // when another process wrote in between: a lost write. One transaction at a time runs per process anyway.
      this.#database.run(() => this.#database.statement("BEGIN IMMEDIATE").run());
    } catch (error) {
      this.#database.unlock(this);
      throw error;
    }
  }

  async commit(): Promise<void> {
    try {
      this.#database.run(() => this.#database.statement("COMMIT").run());
      this.#database.committed();
    } finally {
      this.#database.unlock(this);
    }
  }

  async rollback(): Promise<void> {
    this.#database.rolledBack();
    try {
      this.#database.run(() => this.#database.statement("ROLLBACK").run());
    } finally {
      this.#database.unlock(this);
    }
  }

  async nextId(_sequence: string, table: string, keyColumn: string): Promise<number> {
    await this.#database.ready(this);
    return this.#database.run(() => this.#database.nextId(this, table, keyColumn));
  }

  /** @internal A fast path, not API (see `Connection.nextIdNow`). */
  nextIdNow(_sequence: string, table: string, keyColumn: string): number | undefined {
    if (!this.#database.free(this)) return undefined;
    return this.#database.run(() => this.#database.nextId(this, table, keyColumn));
  }

  release(): void {
    if (this.#database.owns(this)) {
      this.#database.rolledBack();
      try {
        this.#database.statement("ROLLBACK").run();
      } catch {
        // The transaction is already gone; the lock is what matters.
      }
      this.#database.unlock(this);
    }
  }
}

/**
 * Whether `handle` reads rows packed as one JSON text (`Dialect.packRow`): its driver prepares such queries
 * (`SqliteHandle.preparePacked`, where that is the cheaper read), and the library's `json_array` writes a real to its
 * last digit (SQLite 3.45 and later), so that a row read packed is the row read plain.
 */
function readsPackedRows(handle: SqliteHandle, dialect: SqliteDialect): boolean {
  if (handle.preparePacked === undefined) return false;
  const probe = 0.1 + 0.2;
  try {
    const text = handle.preparePacked(`SELECT ${dialect.packRow(["?"])}`).get(probe);
    return typeof text === "string" && (JSON.parse(text) as unknown[])[0] === probe;
  } catch {
    return false;
  }
}
