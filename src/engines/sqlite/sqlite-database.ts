import BetterSqlite3 from "better-sqlite3";
import { DatabaseError } from "../../errors.js";
import type { Connection, Database } from "../database.js";
import { Mutex } from "../mutex.js";
import { SqliteDialect } from "./sqlite-dialect.js";

/** How to open the embedded SQLite engine. */
export interface SqliteOptions {
  /** The database file (created when missing), or `:memory:`. */
  readonly filename: string;
  /**
   * The connection name that sequence numbers are tracked under (SPEC.md 2.8 rule 1); defaults to the
   * file name. Two databases opened with one name share the last key handed out per table.
   */
  readonly name?: string;
  /** Use write-ahead logging (default true for files): readers in other processes do not block the writer. */
  readonly wal?: boolean;
  /** Milliseconds to wait for another process's lock (default 5000). */
  readonly busyTimeout?: number;
}

type Statement = BetterSqlite3.Statement<unknown[], unknown[]>;

/** Last key handed out, per connection name and table (SPEC.md 2.8 rule 1). */
const lastKeys = new Map<string, Map<string, number>>();

/**
 * The embedded engine over one better-sqlite3 connection shared by every session. better-sqlite3 is
 * synchronous, so a statement never interleaves with another; a transaction, which may await in the
 * middle, holds a lock that keeps every other session's statements out until it ends.
 */
export class SqliteDatabase implements Database {
  /** @inheritdoc */
  readonly dialect = new SqliteDialect();
  /** The connection name for sequence tracking. */
  readonly name: string;
  readonly #db: BetterSqlite3.Database;
  readonly #statements = new Map<string, Statement>();
  readonly #inexactStatements = new Map<string, Statement>();
  readonly #lock = new Mutex();
  #owner: SqliteConnection | undefined;

  /** Opens (and creates when missing) the file. */
  constructor(options: SqliteOptions) {
    this.name = options.name ?? options.filename;
    try {
      this.#db = new BetterSqlite3(options.filename);
      this.#db.pragma(`busy_timeout = ${Math.trunc(options.busyTimeout ?? 5000)}`);
      if ((options.wal ?? true) && options.filename !== ":memory:") this.#db.pragma("journal_mode = WAL");
      this.#db.pragma("synchronous = NORMAL");
    } catch (error) {
      throw new DatabaseError(`Cannot open the SQLite database ${options.filename}: ${(error as Error).message}`, { cause: error });
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

  /** @inheritdoc */
  acquireNow(): Connection {
    return new SqliteConnection(this);
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    await this.#lock.idle();
    if (this.#db.open) this.#db.close();
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
      statement = this.run(() => this.#db.prepare<unknown[], unknown[]>(sql));
      if (statement.reader) statement.raw(true);
      statement.safeIntegers(exactIntegers);
      if (cache.size > 2000) cache.clear();
      cache.set(sql, statement);
    }
    return statement;
  }

  /** @internal */
  run<R>(action: () => R): R {
    try {
      return action();
    } catch (error) {
      // A statement that failed to prepare inside `action` is already a DatabaseError: not wrapped twice.
      throw error instanceof DatabaseError ? error : new DatabaseError(`SQLite: ${(error as Error).message}`, { cause: error });
    }
  }

  /** @internal */
  nextId(table: string, keyColumn: string): number {
    const q = this.dialect.quoteIdentifier.bind(this.dialect);
    const row = this.statement(`SELECT MAX(${q(keyColumn)}) FROM ${q(table)}`).get() as unknown[] | undefined;
    const highest = row === undefined || row[0] === null ? 0 : Number(row[0]);
    let byTable = lastKeys.get(this.name);
    if (byTable === undefined) lastKeys.set(this.name, (byTable = new Map()));
    const key = table.toLowerCase();
    const next = Math.max(highest, byTable.get(key) ?? 0) + 1;
    byTable.set(key, next);
    return next;
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

  queryNow(sql: string, parameters: readonly unknown[], exactIntegers = true): unknown[][] | undefined {
    return this.#database.free(this) ? this.#all(sql, parameters, exactIntegers) : undefined;
  }

  #all(sql: string, parameters: readonly unknown[], exactIntegers: boolean): unknown[][] {
    try {
      const statement = this.#database.statement(sql, exactIntegers);
      return (parameters.length === 1 ? statement.all(parameters[0]) : statement.all(...parameters)) as unknown[][];
    } catch (error) {
      throw error instanceof DatabaseError ? error : new DatabaseError(`SQLite: ${(error as Error).message}`, { cause: error });
    }
  }

  execute(sql: string, parameters: readonly unknown[]): Promise<number> {
    const waiting = this.#database.ready(this);
    if (waiting !== undefined) return waiting.then(() => this.execute(sql, parameters));
    try {
      return Promise.resolve(this.#database.run(() => this.#database.statement(sql).run(...parameters).changes));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async begin(): Promise<void> {
    await this.#database.lock(this);
    try {
      this.#database.run(() => this.#database.statement("BEGIN").run());
    } catch (error) {
      this.#database.unlock(this);
      throw error;
    }
  }

  async commit(): Promise<void> {
    try {
      this.#database.run(() => this.#database.statement("COMMIT").run());
    } finally {
      this.#database.unlock(this);
    }
  }

  async rollback(): Promise<void> {
    try {
      this.#database.run(() => this.#database.statement("ROLLBACK").run());
    } finally {
      this.#database.unlock(this);
    }
  }

  async nextId(_sequence: string, table: string, keyColumn: string): Promise<number> {
    await this.#database.ready(this);
    return this.#database.run(() => this.#database.nextId(table, keyColumn));
  }

  release(): void {
    if (this.#database.owns(this)) {
      try {
        this.#database.statement("ROLLBACK").run();
      } catch {
        // The transaction is already gone; the lock is what matters.
      }
      this.#database.unlock(this);
    }
  }
}
