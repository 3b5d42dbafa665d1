import { KeyRangeError } from "../../errors.js";
import { EngineMessages } from "../engine-messages.js";
import { int32Range } from "../../mapping/column-type.js";
import type { SqliteDialect } from "./sqlite-dialect.js";

/** The highest key of the int32 key type. */
const maxKey = int32Range.max;

/** The table in the database file that keeps the last key handed out per table, shared by every process. */
export const keyTable = "tenon_keys";

/** The statement that creates the key table: run here before the first key, and written by the schema tool. */
export const createKeyTable = `CREATE TABLE IF NOT EXISTS ${keyTable} (name TEXT NOT NULL PRIMARY KEY, last INTEGER NOT NULL)`;

/** The key table's statements: the last key of a table, and setting it. */
const readCounter = `SELECT last FROM ${keyTable} WHERE name = ?`;
const writeCounter = `INSERT INTO ${keyTable} (name, last) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET last = excluded.last`;

/** The statements on one entity table that drawing its keys runs, written once per table. */
interface TableStatements {
  /** The highest key up to the int32 maximum: where a table's counter starts. */
  readonly highest: string;
  /** The first key after a given one that no row has. */
  readonly firstFree: string;
  /** Whether a row has a given key. */
  readonly taken: string;
}

/** What the key allocator needs of the database: a prepared statement per SQL text, run synchronously. */
export interface KeyStatements {
  /** Runs a statement and answers its first row (values in SELECT order), or undefined. */
  get(sql: string, parameters: readonly unknown[]): unknown[] | undefined;
  /** Runs a statement that answers no rows. */
  run(sql: string, parameters: readonly unknown[]): void;
}

/** How many keys a process reserves at once (like a sequence's cache): one write transaction per block. */
const blockSize = 32;

/** The keys of a table reserved by this process and not handed out yet: `next` to `end`. */
interface KeyBlock {
  next: number;
  end: number;
  /** The query that tells whether a row has taken a key of the block. */
  readonly taken: string;
}

/**
 * Primary keys for the embedded engine, which has no sequences: the last key reserved per table lives in the
 * table `tenon_keys` of the database file itself, read and advanced inside one write transaction
 * (`BEGIN IMMEDIATE`, or the session's own transaction, which the engine begins IMMEDIATE too), so that every
 * process and every connection on the file draws from one counter and none hands out a key twice.
 *
 * Each database object reserves 32 keys at a time and hands them out from memory, checking each against the
 * table, so that the write transaction is paid once per block, not per insert: keys of several processes
 * interleave by blocks, and a process that stops leaves the rest of its block unused (as a sequence's cache
 * does). A table's counter starts at its highest key the first time a key is drawn for it. A block starts at
 * the first key after the counter that no row has, and a key of the block that a row has taken meanwhile is
 * skipped, so ids that clients chose ahead of the counter never break a later insert, and an id a client chose
 * at the top of the int32 range does not push the counter there. A key beyond int32 is never handed out:
 * `KeyRangeError`.
 */
export class SqliteKeys {
  readonly #dialect: SqliteDialect;
  readonly #blocks = new Map<string, KeyBlock>();
  /** The key of `#blocks` of each table name as callers spell it (the lower-case name), so that a draw lower-cases nothing. */
  readonly #names = new Map<string, string>();
  /** The statements of each table (by lower-case name), written on its first block. */
  readonly #tables = new Map<string, TableStatements>();
  #tableReady = false;
  /** Whether a transaction not committed yet reserved a block or created the key table. */
  #uncommitted = false;

  /** @param dialect quotes the names of the entity tables. */
  constructor(dialect: SqliteDialect) {
    this.#dialect = dialect;
  }

  /**
   * Forgets the reserved blocks and that the key table exists: the transaction that reserved or created them
   * may have been rolled back.
   */
  forget(): void {
    // A transaction that reserved nothing takes nothing with it: the blocks stay (no keys are skipped for it).
    if (!this.#uncommitted) return;
    this.#uncommitted = false;
    this.#tableReady = false;
    this.#blocks.clear();
  }

  /** The transaction that reserved blocks committed: they are the file's now, whatever is rolled back later. */
  committed(): void {
    this.#uncommitted = false;
  }

  /** The next key of `table` from this process's block, or undefined when none is left (then `reserve`). */
  fromBlock(statements: KeyStatements, table: string): number | undefined {
    let name = this.#names.get(table);
    if (name === undefined) this.#names.set(table, (name = table.toLowerCase()));
    const block = this.#blocks.get(name);
    if (block === undefined) return undefined;
    while (block.next <= block.end) {
      const key = block.next++;
      if (statements.get(block.taken, [key]) === undefined) return key;
    }
    return undefined;
  }

  /**
   * Reserves the next block of `table` and answers its first key: the caller runs this inside a write
   * transaction. `statements` runs on the database's one connection.
   */
  reserve(statements: KeyStatements, table: string, keyColumn: string): number {
    this.#uncommitted = true;
    if (!this.#tableReady) {
      statements.run(createKeyTable, []);
      this.#tableReady = true;
    }
    const name = table.toLowerCase();
    const texts = this.#tableStatements(name, table, keyColumn);
    const counter = statements.get(readCounter, [name]);
    const last = counter !== undefined ? Number(counter[0]) : Number(statements.get(texts.highest, [maxKey])?.[0] ?? 0);
    // The first key after `last` that no row has: `last + 1`, or one past a row at or above it.
    const free = statements.get(texts.firstFree, [last + 1, last]);
    const key = Number(free?.[0] ?? last + 1);
    if (!(key <= maxKey)) {
      throw new KeyRangeError(EngineMessages.sqliteKeysExhausted(table, last, keyTable));
    }
    const end = Math.min(key + blockSize - 1, maxKey);
    statements.run(writeCounter, [name, end]);
    this.#blocks.set(name, { next: key + 1, end, taken: texts.taken });
    return key;
  }

  /**
   * The statements of a table, written the first time: text joined anew for every block was hashed anew by the
   * cache of prepared statements (some 2k instructions a statement), text made once is hashed once.
   */
  #tableStatements(name: string, table: string, keyColumn: string): TableStatements {
    let texts = this.#tables.get(name);
    if (texts === undefined) {
      const t = this.#dialect.quoteIdentifier(table);
      const k = this.#dialect.quoteIdentifier(keyColumn);
      texts = {
        highest: `SELECT COALESCE(MAX(${k}), 0) FROM ${t} WHERE ${k} <= ?`,
        firstFree: `SELECT MIN(c) FROM (SELECT ? AS c UNION ALL SELECT ${k} + 1 FROM ${t} WHERE ${k} > ?) WHERE NOT EXISTS (SELECT 1 FROM ${t} WHERE ${k} = c)`,
        taken: `SELECT 1 FROM ${t} WHERE ${k} = ?`,
      };
      this.#tables.set(name, texts);
    }
    return texts;
  }
}
