import { DatabaseError } from "../../errors.js";
import { EngineMessages } from "../engine-messages.js";
import { betterSqlite3Driver } from "./drivers/better-sqlite3.js";
import { nodeSqliteDriver } from "./drivers/node-sqlite.js";

/**
 * The SQLite libraries the embedded engine runs on: `better-sqlite3` (a compiled addon, on every supported
 * Node.js line) and `node:sqlite` (built into Node.js 22.16 and later, nothing to compile). Both are
 * synchronous and run the same SQL text; only opening a file, preparing a statement and the shape of their
 * errors differ, which each driver's module in `drivers/` says.
 */
export type SqliteDriverName = "better-sqlite3" | "node:sqlite";

/**
 * @internal One prepared statement. Both drivers' own statement objects have this shape, so the engine
 * calls them directly (no wrapper on the hot path). Rows are arrays of column values in SELECT order.
 */
export interface SqliteStatement {
  all(...parameters: unknown[]): unknown[];
  get(...parameters: unknown[]): unknown;
  run(...parameters: unknown[]): { readonly changes: number | bigint };
  /** Steps the statement a row at a time: the rows of a cursor, each read when asked for. */
  iterate(...parameters: unknown[]): IterableIterator<unknown>;
}

/** @internal One open database file through one driver. */
export interface SqliteHandle {
  /** The driver's name. */
  readonly driver: SqliteDriverName;
  /**
   * Prepares `sql` so that rows come back as arrays, integers as bigints when `exactIntegers` (numbers
   * otherwise, where no selected column needs more than 2^53).
   */
  prepare(sql: string, exactIntegers: boolean): SqliteStatement;
  /**
   * Prepares `sql`, which selects one column, so that each row comes back as that column's value alone (integers as
   * numbers). Present where reading a row packed as one JSON text (`Dialect.packRow`) is cheaper than reading its
   * values: better-sqlite3 builds a row array value by value through V8's API, some 900 instructions a value.
   */
  preparePacked?(sql: string): SqliteStatement;
  /** Runs SQL text with no parameters and no result (schema scripts, pragmas). */
  exec(sql: string): void;
  /** Closes the file; a second call does nothing. */
  close(): void;
}

/** @internal How a driver opens a file. */
export interface SqliteDriver {
  readonly name: SqliteDriverName;
  /**
   * Opens (and creates when missing) `filename`, or `:memory:`; `readOnly` opens an existing file for reading
   * only (a cursor's connection of its own).
   */
  open(filename: string, readOnly?: boolean): SqliteHandle;
}

/**
 * @internal Opens `filename` with `driver`, or with the default driver: `node:sqlite` on Node.js 24 and later
 * (nothing to compile, and as fast as better-sqlite3 there); on older lines better-sqlite3 when it is installed
 * and loads, else `node:sqlite` where the line has it (22.16 and later; Node.js 22 still calls it experimental and
 * warns once per process). A driver that is missing, or a file that cannot be opened, is a `DatabaseError` that
 * says which and why.
 */
export function openSqlite(filename: string, driver: SqliteDriverName | undefined, readOnly = false): SqliteHandle {
  const chosen = sqliteDriver(driver);
  try {
    return chosen.open(filename, readOnly);
  } catch (error) {
    throw new DatabaseError(EngineMessages.cannotOpenSqlite(filename, (error as Error).message), { cause: error });
  }
}

/** @internal The driver named, or the default one (see `openSqlite`); a `DatabaseError` when it is missing. */
export function sqliteDriver(driver: SqliteDriverName | undefined): SqliteDriver {
  if (driver === "node:sqlite") return nodeSqliteDriver() ?? fail(EngineMessages.nodeSqliteMissing(process.versions.node));
  if (driver === undefined && nodeSqliteIsDefault) {
    const builtIn = nodeSqliteDriver();
    if (builtIn !== undefined) return builtIn;
  }
  const better = betterSqlite3Driver();
  if (!(better instanceof Error)) return better;
  if (driver === "better-sqlite3") fail(EngineMessages.betterSqlite3Missing(process.versions.node, better.message), better);
  return nodeSqliteDriver() ?? fail(EngineMessages.noSqliteDriver(process.versions.node, better.message), better);
}

/** Whether this Node.js line (24 or later) opens files on `node:sqlite` when no driver is named. */
const nodeSqliteIsDefault = Number(process.versions.node.split(".")[0]) >= 24;

function fail(message: string, cause?: Error): never {
  throw new DatabaseError(message, { cause });
}
