import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";
import { EngineMessages } from "../../engine-messages.js";
import type { SqliteDriver, SqliteHandle, SqliteStatement } from "../sqlite-driver.js";

type BetterSqlite3Constructor = typeof BetterSqlite3;
type BetterSqlite3Database = InstanceType<BetterSqlite3Constructor>;

let loaded: BetterSqlite3Constructor | Error | undefined;

/**
 * The better-sqlite3 package when it is installed and its compiled addon loads on this Node.js line, else
 * why not (it is an optional dependency: an install without a C++ toolchain leaves it out; and it is not loaded
 * where it would abort the process, see `abortsOnThisLine`). Loaded once, on
 * first use, so that an application on `node:sqlite` never loads it.
 */
function betterSqlite3(): BetterSqlite3Constructor | Error {
  if (loaded === undefined) {
    try {
      const require = createRequire(import.meta.url);
      const { version } = require("better-sqlite3/package.json") as { version: string };
      if (abortsOnThisLine(version, process.versions.node))
        throw new Error(EngineMessages.betterSqlite3Aborts(process.versions.node, version));
      const Database = require("better-sqlite3") as BetterSqlite3Constructor;
      // Opening a database loads the addon itself: a package present but built for another Node.js line fails here.
      new Database(":memory:").close();
      loaded = Database;
    } catch (error) {
      loaded = error instanceof Error ? error : new Error(String(error));
    }
  }
  return loaded;
}

/**
 * Whether better-sqlite3 `version` aborts the process on Node.js `node`: its versions before 13 derive their
 * statements from Node's raw `ObjectWrap`, whose destructor, from Node.js 24.19 on (24.x; 22 and 26 are not
 * affected), checks for a JavaScript environment that a garbage collection outside JavaScript does not have
 * (`Assertion failed: (env) != nullptr`, reproduced on 24.21 by statements left to the collector).
 */
function abortsOnThisLine(version: string, node: string): boolean {
  const [major = 0] = version.split(".").map(Number);
  const [nodeMajor = 0, nodeMinor = 0] = node.split(".").map(Number);
  return major < 13 && nodeMajor === 24 && nodeMinor >= 19;
}

/**
 * Whether reads by key are packed as one JSON text (`SqliteHandle.preparePacked`): on Node.js 20 only, whose V8 builds
 * better-sqlite3's row arrays value by value at some 900 instructions a value (GET of a 12-column row: 6,500 fewer
 * instructions packed). On Node.js 22 and 26 the packed read cost 2,500 and 2,800 more than the plain one (measured
 * with `bench/instructions.mjs`, S2): their V8 builds the arrays cheaply.
 */
const packsRows = Number(process.versions.node.split(".")[0]) < 22;

/** A statement of one column whose rows come back as that column's value alone, integers as numbers. */
function preparePacked(db: BetterSqlite3Database, sql: string): SqliteStatement {
  const statement = db.prepare<unknown[], unknown>(sql);
  statement.pluck(true);
  statement.safeIntegers(false);
  return statement as unknown as SqliteStatement;
}

/** @internal The better-sqlite3 driver, or the error that says why it does not load (not installed, built for another line). */
export function betterSqlite3Driver(): SqliteDriver | Error {
  const Database = betterSqlite3();
  if (Database instanceof Error) return Database;
  return {
    name: "better-sqlite3",
    open(filename: string, readOnly = false): SqliteHandle {
      const db = readOnly ? new Database(filename, { readonly: true, fileMustExist: true }) : new Database(filename);
      return {
        driver: "better-sqlite3",
        prepare(sql: string, exactIntegers: boolean): SqliteStatement {
          const statement = db.prepare<unknown[], unknown[]>(sql);
          if (statement.reader) statement.raw(true);
          statement.safeIntegers(exactIntegers);
          return statement;
        },
        ...(packsRows ? { preparePacked: (sql: string): SqliteStatement => preparePacked(db, sql) } : {}),
        exec(sql: string): void {
          db.exec(sql);
        },
        close(): void {
          if (db.open) db.close();
        },
      };
    },
  };
}
