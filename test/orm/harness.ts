import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Database } from "tenon";
import { SqliteDatabase, type SqliteDriverName } from "tenon/sqlite";
import { mainSqliteDriver, readSqliteRows } from "../support/sqlite-drivers.js";

/** The SQL type names of one engine, for the neutral test schema. */
export interface SqlTypes {
  readonly int32: string;
  readonly int64: string;
  readonly float: string;
  readonly decimal: (precision: number, scale: number) => string;
  readonly text: string;
  readonly varchar: (size: number) => string;
  readonly boolean: string;
  readonly timestamp: string;
  readonly blob: string;
}

/** A fresh, empty database of one engine for one test file; `close()` leaves nothing behind. */
export interface TestDatabase {
  /** The database under test. */
  readonly database: Database;
  /** Runs DDL or fixture SQL directly on the engine. */
  exec(sql: string): Promise<void>;
  /** Reads rows directly from the engine, bypassing Tenon (for checking what is really stored). */
  rows(sql: string, parameters?: unknown[]): Promise<Record<string, unknown>[]>;
  /** Closes the database and removes its schema or file. */
  close(): Promise<void>;
}

/** One engine the ORM suite runs against. */
export interface EngineHarness {
  /** The engine name, used in test names. */
  readonly name: string;
  /** Its SQL types. */
  readonly types: SqlTypes;
  /** Whether the engine has real sequences (CREATE SEQUENCE). */
  readonly hasSequences: boolean;
  /**
   * A decimal as the engine stores it, for SQL written by hand: the text itself, or on SQLite the integer
   * scaled by 10^scale (docs/engines.md), for precisions up to 18.
   */
  storedDecimal(text: string, scale: number): unknown;
  /** The DDL that creates the sequence `name` (default `CREATE SEQUENCE name`). */
  readonly createSequence?: (name: string) => string;
  /** The DDL that restarts the sequence `name` at `value` (default `ALTER SEQUENCE name RESTART WITH value`). */
  readonly restartSequence?: (name: string, value: number) => string;
  /**
   * Whether every node of a cluster takes writes (Galera): two sessions writing the same key through two
   * nodes are then decided at COMMIT, where the loser may get a certification failure (1213) instead of
   * the duplicate-key or version error a single server gives.
   */
  readonly multiPrimary?: boolean;
  /** Creates a fresh database; throws when the engine is unreachable. */
  open(): Promise<TestDatabase>;
}

/** The DDL of the sequence `name` on the harness's engine. */
export function sequenceDdl(harness: EngineHarness, name: string): string {
  return harness.createSequence?.(name) ?? `CREATE SEQUENCE ${name}`;
}

/** The DDL that restarts the sequence `name` at `value` on the harness's engine. */
export function sequenceRestartDdl(harness: EngineHarness, name: string, value: number): string {
  return harness.restartSequence?.(name, value) ?? `ALTER SEQUENCE ${name} RESTART WITH ${value}`;
}

/** The embedded engine through `driver` on a real file in a temporary directory. */
export function sqliteHarnessFor(driver: SqliteDriverName): EngineHarness {
  return {
    name: driver === "node:sqlite" ? "SQLite (node:sqlite)" : "SQLite",
    types: {
      int32: "INTEGER",
      int64: "INTEGER",
      float: "REAL",
      // Decimals are scaled integers up to precision 18 and comparable text above (docs/engines.md).
      decimal: (precision) => (precision <= 18 ? "INTEGER" : "TEXT"),
      text: "TEXT",
      varchar: () => "TEXT",
      boolean: "INTEGER",
      timestamp: "TEXT",
      blob: "BLOB",
    },
    hasSequences: false,
    storedDecimal(text, scale) {
      const [whole, fraction = ""] = text.split(".");
      return BigInt(whole + fraction.padEnd(scale, "0"));
    },
    async open(): Promise<TestDatabase> {
      const directory = mkdtempSync(join(tmpdir(), "tenon-orm-"));
      const filename = join(directory, "test.sqlite");
      const database = new SqliteDatabase({ filename, name: filename, driver });
      return {
        database,
        async exec(sql: string): Promise<void> {
          database.exec(sql);
        },
        async rows(sql: string, parameters: unknown[] = []): Promise<Record<string, unknown>[]> {
          return readSqliteRows(filename, sql, parameters, driver);
        },
        async close(): Promise<void> {
          await database.close();
          rmSync(directory, { recursive: true, force: true });
        },
      };
    },
  };
}

/** The embedded engine on better-sqlite3, the driver every supported Node.js line has (node:sqlite where it cannot run). */
export const sqliteHarness: EngineHarness = sqliteHarnessFor(mainSqliteDriver);
