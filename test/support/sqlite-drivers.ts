// The two SQLite drivers in tests: whether this Node.js line has node:sqlite, and reading rows of a file
// directly (bypassing Tenon) with a given driver, as plain objects.
import { createRequire } from "node:module";
import type { SqliteDriverName } from "tenon/sqlite";

/**
 * Why `node:sqlite` cannot run on this Node.js line, or undefined when it must. Decided by the version alone,
 * so that a line that should have it and does not fails its tests instead of skipping them.
 */
export function nodeSqliteAbsence(version = process.versions.node): string | undefined {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  if (major > 22 || (major === 22 && minor >= 16)) return undefined;
  return `Node.js ${version} has no node:sqlite with rows as arrays (it arrived without a flag in 22.13 and setReturnArrays in 22.16; Node.js 20 has none), so the node:sqlite driver cannot run here; .ci/run runs it on Node.js 22, 24 and 26`;
}

/**
 * Why better-sqlite3 cannot run on this Node.js line, or undefined when it must: its versions before 13 abort
 * the process on Node.js 24.19 and later 24.x when a statement is garbage-collected, so Tenon does not load them
 * there (docs/engines.md). Decided from the versions alone, as `nodeSqliteAbsence` is.
 */
export function betterSqlite3Absence(version = process.versions.node): string | undefined {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const installed = (createRequire(import.meta.url)("better-sqlite3/package.json") as { version: string }).version;
  if (major !== 24 || minor < 19 || Number(installed.split(".")[0]) >= 13) return undefined;
  return `better-sqlite3 ${installed} aborts the process on Node.js ${version} when a statement is garbage-collected, so Tenon does not load it here`;
}

/**
 * The driver of the suites named "SQLite": better-sqlite3, the driver every supported line has, except where it
 * cannot run (`betterSqlite3Absence`), where they run on node:sqlite.
 */
export const mainSqliteDriver: SqliteDriverName = betterSqlite3Absence() === undefined ? "better-sqlite3" : "node:sqlite";

/**
 * The driver Tenon opens a file with when none is named, as the rule says it must be on this line: `node:sqlite`
 * on Node.js 24 and later, else better-sqlite3 (installed wherever the suites run on Node.js 20 and 22). Decided
 * from the version, so that a default that changes fails the driver test instead of following it.
 */
export const defaultSqliteDriver: SqliteDriverName = Number(process.versions.node.split(".")[0]) >= 24 ? "node:sqlite" : "better-sqlite3";

/** The driver the environment names in `TENON_SQLITE_DRIVER` (the demo's `SQLITE_DRIVER` in its suites), or undefined. */
export function sqliteDriverOf(value: string | undefined): SqliteDriverName | undefined {
  if (value === undefined || value === "") return undefined;
  if (value === "node:sqlite" || value === "better-sqlite3") return value;
  throw new Error(`unknown SQLite driver ${value}: better-sqlite3 or node:sqlite`);
}

interface RowReader {
  prepare(sql: string): { all(...parameters: unknown[]): unknown[]; setReadBigInts?(enabled: boolean): void };
  close(): void;
}

/** Rows of `sql` read from `filename` opened read-only with `driver` (default better-sqlite3), as plain objects. */
export function readSqliteRows(
  filename: string,
  sql: string,
  parameters: readonly unknown[] = [],
  driver: SqliteDriverName = "better-sqlite3",
): Record<string, unknown>[] {
  let reader: RowReader;
  if (driver === "node:sqlite") {
    const { DatabaseSync } = process.getBuiltinModule("node:sqlite") as {
      DatabaseSync: new (file: string, options: { readOnly: boolean }) => RowReader;
    };
    reader = new DatabaseSync(filename, { readOnly: true });
  } else {
    const BetterSqlite3 = createRequire(import.meta.url)("better-sqlite3") as new (
      file: string,
      options: { readonly: boolean; fileMustExist: boolean },
    ) => RowReader;
    reader = new BetterSqlite3(filename, { readonly: true, fileMustExist: true });
  }
  try {
    // node:sqlite's rows have no prototype; its blobs are Uint8Arrays where better-sqlite3 gives Buffers; and it
    // refuses an integer beyond 2^53 as a number, which better-sqlite3 rounds: read as a bigint, rounded alike.
    const statement = reader.prepare(sql);
    statement.setReadBigInts?.(true);
    return statement.all(...parameters).map((row) => {
      const plain: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(row as object))
        plain[key] =
          value instanceof Uint8Array && !Buffer.isBuffer(value) ? Buffer.from(value) : typeof value === "bigint" ? Number(value) : value;
      return plain;
    });
  } finally {
    reader.close();
  }
}
