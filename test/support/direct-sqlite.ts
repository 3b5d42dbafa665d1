// A connection of a test's own to a SQLite file (to seed it, or read behind Tenon's back), through the SQLite
// library Tenon opens files with when no driver is named (`defaultSqliteDriver`), as the tests that use this do:
// two copies of SQLite in one process do not see each other's file locks.
// The surface is the part of better-sqlite3's that the tests use; rows are plain objects either way.
import { createRequire } from "node:module";
import { defaultSqliteDriver } from "./sqlite-drivers.js";

/** A prepared statement, as better-sqlite3 has it. */
export interface DirectStatement {
  run(...parameters: unknown[]): unknown;
  all(...parameters: unknown[]): unknown[];
  get(...parameters: unknown[]): unknown;
  /** Rows as arrays of values (better-sqlite3's `raw`). */
  raw(on?: boolean): DirectStatement;
}

/** An open file. */
export interface DirectSqlite {
  exec(sql: string): void;
  prepare(sql: string): DirectStatement;
  /** Runs `PRAGMA text`. */
  pragma(text: string): void;
  /** `work` in one transaction, as better-sqlite3's `transaction(work)()`. */
  transaction(work: () => void): () => void;
  close(): void;
}

interface NodeStatement {
  run(...parameters: unknown[]): unknown;
  all(...parameters: unknown[]): unknown[];
  get(...parameters: unknown[]): unknown;
  setReturnArrays(on: boolean): void;
}
interface NodeDatabase {
  prepare(sql: string): NodeStatement;
  exec(sql: string): void;
  close(): void;
}

const plain = (row: unknown): unknown => (row === undefined || Array.isArray(row) ? row : { ...(row as object) });

/** Opens `filename` (read-only with `readonly`), with the library Tenon uses when no driver is named. */
export function openDirectSqlite(filename: string, options: { readonly?: boolean } = {}): DirectSqlite {
  if (defaultSqliteDriver === "better-sqlite3") {
    const BetterSqlite3 = createRequire(import.meta.url)("better-sqlite3") as new (
      file: string,
      options: { readonly?: boolean; fileMustExist?: boolean },
    ) => DirectSqlite;
    return new BetterSqlite3(filename, options.readonly === true ? { readonly: true, fileMustExist: true } : {});
  }
  const { DatabaseSync } = process.getBuiltinModule("node:sqlite") as {
    DatabaseSync: new (file: string, options: { readOnly: boolean }) => NodeDatabase;
  };
  const db = new DatabaseSync(filename, { readOnly: options.readonly === true });
  const statementOf = (statement: NodeStatement): DirectStatement => {
    let arrays = false;
    const direct: DirectStatement = {
      run: (...parameters) => statement.run(...parameters),
      all: (...parameters) => statement.all(...parameters).map((row) => (arrays ? row : plain(row))),
      get: (...parameters) => (arrays ? statement.get(...parameters) : plain(statement.get(...parameters))),
      raw: (on = true) => {
        arrays = on;
        statement.setReturnArrays(on);
        return direct;
      },
    };
    return direct;
  };
  return {
    exec: (sql) => db.exec(sql),
    prepare: (sql) => statementOf(db.prepare(sql)),
    pragma: (text) => db.exec(`PRAGMA ${text}`),
    transaction: (work) => () => {
      db.exec("BEGIN");
      try {
        work();
        db.exec("COMMIT");
      } catch (error) {
        db.exec("ROLLBACK");
        throw error;
      }
    },
    close: () => db.close(),
  };
}
