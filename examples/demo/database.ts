import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Database } from "tenon";

/**
 * Opens the demo's database: `DATABASE_URL` (`postgres://...` or `mariadb://...`) when set, else the
 * SQLite file. A driver the demo does not use is never loaded.
 */
export async function openDemoDatabase(databaseUrl: string | undefined, sqliteFile: string): Promise<Database> {
  if (databaseUrl === undefined || databaseUrl === "") {
    const { SqliteDatabase } = await import("tenon/sqlite");
    mkdirSync(dirname(sqliteFile), { recursive: true });
    return new SqliteDatabase({ filename: sqliteFile });
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
