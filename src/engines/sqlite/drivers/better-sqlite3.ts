import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";
import type { SqliteDriver, SqliteHandle, SqliteStatement } from "../sqlite-driver.js";

type BetterSqlite3Constructor = typeof BetterSqlite3;

let loaded: BetterSqlite3Constructor | Error | undefined;

/**
 * The better-sqlite3 package when it is installed and its compiled addon loads on this Node.js line, else
 * why not (it is an optional dependency: an install without a C++ toolchain leaves it out). Loaded once, on
 * first use, so that an application on `node:sqlite` never loads it.
 */
function betterSqlite3(): BetterSqlite3Constructor | Error {
  if (loaded === undefined) {
    try {
      const Database = createRequire(import.meta.url)("better-sqlite3") as BetterSqlite3Constructor;
      // Opening a database loads the addon itself: a package present but built for another Node.js line fails here.
      new Database(":memory:").close();
      loaded = Database;
    } catch (error) {
      loaded = error instanceof Error ? error : new Error(String(error));
    }
  }
  return loaded;
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
