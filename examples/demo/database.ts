import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Database } from "tenon";
import type { SqliteDatabase } from "tenon/sqlite";

/** What the demo says about its database when it starts: the engine, and on SQLite the driver. */
export function describeDemoDatabase(database: Database): string {
  const driver = (database as Partial<SqliteDatabase>).driver;
  return driver === undefined ? database.dialect.name : `${database.dialect.name} via ${driver}`;
}

/**
 * Opens the demo's database: `DATABASE_URL` (`postgres://...` or `mariadb://...`) when set, else the
 * SQLite file through `sqliteDriver` (`better-sqlite3` or `node:sqlite`; empty: Tenon's default). A driver
 * the demo does not use is never loaded.
 */
export async function openDemoDatabase(databaseUrl: string | undefined, sqliteFile: string, sqliteDriver = ""): Promise<Database> {
  if (databaseUrl === undefined || databaseUrl === "") {
    const { SqliteDatabase } = await import("tenon/sqlite");
    if (sqliteDriver !== "" && sqliteDriver !== "better-sqlite3" && sqliteDriver !== "node:sqlite")
      throw new Error(`SQLITE_DRIVER must be better-sqlite3 or node:sqlite, not ${sqliteDriver}.`);
    mkdirSync(dirname(sqliteFile), { recursive: true });
    return new SqliteDatabase({ filename: sqliteFile, driver: sqliteDriver === "" ? undefined : sqliteDriver });
  }
  const scheme = databaseUrl.slice(0, databaseUrl.indexOf(":")).toLowerCase();
  if (scheme === "postgres" || scheme === "postgresql") {
    const { PostgresDatabase } = await import("tenon/postgres");
    return new PostgresDatabase({ connectionString: databaseUrl });
  }
  if (scheme === "mariadb" || scheme === "mysql") {
    const { MariaDbDatabase } = await import("tenon/mariadb");
    return new MariaDbDatabase({ connectionString: databaseUrl });
  }
  throw new Error(`DATABASE_URL must start with postgres:// or mariadb://, not ${scheme}://.`);
}
