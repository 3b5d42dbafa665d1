import { KeyRangeError } from "../../errors.js";
import type { SqliteDialect } from "./sqlite-dialect.js";

/** The highest key of the int32 key type (SPEC.md TTPrimaryKey). */
const maxKey = 2147483647;

/** The table in the database file that keeps the last key handed out per table, shared by every process. */
export const keyTable = "tenon_keys";

/** The statement that creates the key table: run here before the first key, and written by the schema tool. */
export const createKeyTable = `CREATE TABLE IF NOT EXISTS ${keyTable} (name TEXT NOT NULL PRIMARY KEY, last INTEGER NOT NULL)`;

/** What the key allocator needs of the database: a prepared statement per SQL text, run synchronously. */
export interface KeyStatements {
  /** Runs a statement and answers its first row (values in SELECT order), or undefined. */
  get(sql: string, parameters: readonly unknown[]): unknown[] | undefined;
  /** Runs a statement that answers no rows. */
  run(sql: string, parameters: readonly unknown[]): void;
}

/**
 * Primary keys for the embedded engine, which has no sequences: the last key handed out per table lives in
 * the table `tenon_keys` of the database file itself, read and advanced inside one write transaction
 * (`BEGIN IMMEDIATE`, or the session's own transaction, which the engine begins IMMEDIATE too), so that every
 * process and every connection on the file draws from one counter and none hands out a key twice.
 *
 * A table's counter starts at its highest key the first time a key is drawn for it. Each key is the first one
 * after the counter that no row has, so ids that clients chose ahead of the counter are stepped over instead of
 * breaking a later insert, and an id a client chose at the top of the int32 range does not push the counter
 * there. A key beyond int32 is never handed out: `KeyRangeError`.
 */
export class SqliteKeys {
  readonly #dialect: SqliteDialect;
  #tableReady = false;

  /** @param dialect quotes the names of the entity tables. */
  constructor(dialect: SqliteDialect) {
    this.#dialect = dialect;
  }

  /** Forgets that the key table exists: the transaction that created it may have been rolled back. */
  forget(): void {
    this.#tableReady = false;
  }

  /**
   * The next key of `table`: the caller runs this inside a write transaction. `statements` runs on the
   * database's one connection.
   */
  next(statements: KeyStatements, table: string, keyColumn: string): number {
    if (!this.#tableReady) {
      statements.run(createKeyTable, []);
      this.#tableReady = true;
    }
    const q = (name: string): string => this.#dialect.quoteIdentifier(name);
    const name = table.toLowerCase();
    const t = q(table);
    const k = q(keyColumn);
    const counter = statements.get(`SELECT last FROM ${keyTable} WHERE name = ?`, [name]);
    const last =
      counter !== undefined
        ? Number(counter[0])
        : Number(statements.get(`SELECT COALESCE(MAX(${k}), 0) FROM ${t} WHERE ${k} <= ?`, [maxKey])?.[0] ?? 0);
    // The first key after `last` that no row has: `last + 1`, or one past a row at or above it.
    const free = statements.get(
      `SELECT MIN(c) FROM (SELECT ? AS c UNION ALL SELECT ${k} + 1 FROM ${t} WHERE ${k} > ?) WHERE NOT EXISTS (SELECT 1 FROM ${t} WHERE ${k} = c)`,
      [last + 1, last],
    );
    const key = Number(free?.[0] ?? last + 1);
    if (!(key <= maxKey)) {
      throw new KeyRangeError(
        `SQLite: no key of ${table} is left in the int32 range after ${last}; compact the keys or reset the row of ${keyTable}.`,
      );
    }
    statements.run(`INSERT INTO ${keyTable} (name, last) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET last = excluded.last`, [name, key]);
    return key;
  }
}
