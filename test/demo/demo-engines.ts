// The databases the end-to-end demo suite runs on: a temporary SQLite file, a scratch PostgreSQL database,
// a scratch MariaDB database (test/support/scratch-database.ts). Each gives the demo's environment and a
// direct, read-only view of the rows.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SqliteDriverName } from "tenon/sqlite";
import { mariaDbUrl } from "../orm/harness-mariadb.js";
import { postgresUrl } from "../orm/harness-postgres.js";
import type { PatroniCluster } from "../support/patroni-cluster.js";
import { createMariaDbScratch, createPostgresScratch, type ScratchDatabase } from "../support/scratch-database.js";
import { mainSqliteDriver, readSqliteRows } from "../support/sqlite-drivers.js";

/** One database the demo runs on for one suite. */
export interface DemoDatabase {
  /** Environment of the demo process (DATABASE_URL or DEMO_DB_FILE) and LOG_FILE. */
  readonly env: Record<string, string>;
  /** The JSON-lines log file. */
  readonly logFile: string;
  /** Rows read directly from the engine (column aliases should be lower case; values as the driver gives them). */
  rows(sql: string): Promise<Record<string, unknown>[]>;
  /** The amount of a money column (decimal(18, 2)) as read by `rows`: SQLite stores cents (docs/engines.md). */
  money(stored: unknown): number;
  /** Drops the database and removes temporary files. */
  close(): Promise<void>;
}

/** An engine of the end-to-end suite. */
export interface DemoEngine {
  readonly name: string;
  /** What the demo must say of its database in its "listening" line (`sqlite via node:sqlite`), when checked. */
  readonly describes?: string;
  open(): Promise<DemoDatabase>;
}

function tempDirectory(): string {
  return mkdtempSync(join(tmpdir(), "tenon-demo-"));
}

/**
 * SQLite through `driver`: a file in a temporary directory (DEMO_DB_FILE, SQLITE_DRIVER), read in read-only
 * mode with the same driver.
 */
export function sqliteDemoEngineWith(driver: SqliteDriverName): DemoEngine {
  return {
    name: driver === "node:sqlite" ? "SQLite (node:sqlite)" : "SQLite",
    describes: `sqlite via ${driver}`,
    async open() {
      const directory = tempDirectory();
      const file = join(directory, "demo.sqlite");
      const logFile = join(directory, "http.log");
      return {
        money: (stored) => Number(stored) / 100,
        env: { DEMO_DB_FILE: file, LOG_FILE: logFile, SQLITE_DRIVER: driver },
        logFile,
        async rows(sql) {
          return readSqliteRows(file, sql, [], driver);
        },
        async close() {
          rmSync(directory, { recursive: true, force: true });
        },
      };
    },
  };
}

/** SQLite on better-sqlite3, the driver every supported Node.js line has (node:sqlite where it cannot run). */
export const sqliteDemoEngine: DemoEngine = sqliteDemoEngineWith(mainSqliteDriver);

/** PostgreSQL: a fresh database `tenon_demo_<pid>_<random>`, dropped (with force) at close. */
export const postgresDemoEngine: DemoEngine = {
  name: "PostgreSQL",
  async open() {
    const scratch = await createPostgresScratch(postgresUrl, { prefix: "tenon_demo" });
    return scratchDemoDatabase(scratch, scratch.url);
  },
};

/**
 * PostgreSQL on a Patroni cluster: a fresh database on its leader, and every node in DATABASE_URL with
 * `replicaReads=true`, so that the demo finds the primary itself and reads from the replicas.
 */
export function patroniDemoEngine(cluster: () => PatroniCluster): DemoEngine {
  return {
    name: "PostgreSQL on Patroni, reads on replicas",
    async open() {
      await cluster().waitHealthy(undefined, 2);
      const scratch = await cluster().scratch("tenon_demo", { replicaReads: "true" });
      return scratchDemoDatabase(scratch, scratch.url);
    },
  };
}

/** The demo's view of a scratch database: its DATABASE_URL, a log file in a temporary directory, direct reads. */
function scratchDemoDatabase(scratch: ScratchDatabase, url: string): DemoDatabase {
  const directory = tempDirectory();
  const logFile = join(directory, "http.log");
  return {
    money: (stored) => Number(stored),
    env: { DATABASE_URL: url, LOG_FILE: logFile },
    logFile,
    rows: (sql) => scratch.rows(sql),
    async close() {
      try {
        await scratch.close();
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    },
  };
}

/** MariaDB: a fresh database `tenon_demo_<pid>_<random>`, dropped at close. */
export const mariaDbDemoEngine: DemoEngine = mariaDbDemoEngineAt("MariaDB", mariaDbUrl);

/**
 * A MariaDB server or cluster at `server` (a Galera cluster's HAProxy): a fresh database as for MariaDB.
 * `directSetup` runs on the direct connection first (on Galera, `SET SESSION wsrep_sync_wait = 1`, so that
 * the rows it reads through any node include the demo's acknowledged writes).
 */
export function mariaDbDemoEngineAt(engineName: string, server: string, directSetup: readonly string[] = []): DemoEngine {
  return {
    name: engineName,
    async open() {
      const scratch = await createMariaDbScratch(server, { prefix: "tenon_demo", directSetup });
      return scratchDemoDatabase(scratch, scratch.url);
    },
  };
}
