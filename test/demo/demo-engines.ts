// The databases the end-to-end demo suite runs on: a temporary SQLite file, a throwaway PostgreSQL database,
// a throwaway MariaDB database. Each gives the demo's environment and a direct, read-only view of the rows.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { createConnection } from "mariadb";
import pg from "pg";
import { mariaDbUrl } from "../orm/harness-mariadb.js";
import { postgresUrl } from "../orm/harness-postgres.js";

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
  open(): Promise<DemoDatabase>;
}

function tempDirectory(): string {
  return mkdtempSync(join(tmpdir(), "tenon-demo-"));
}

/** SQLite: a file in a temporary directory (DEMO_DB_FILE), read with better-sqlite3 in read-only mode. */
export const sqliteDemoEngine: DemoEngine = {
  name: "SQLite",
  async open() {
    const directory = tempDirectory();
    const file = join(directory, "demo.sqlite");
    const logFile = join(directory, "http.log");
    return {
      money: (stored) => Number(stored) / 100,
      env: { DEMO_DB_FILE: file, LOG_FILE: logFile },
      logFile,
      async rows(sql) {
        const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
        try {
          return db.prepare(sql).all() as Record<string, unknown>[];
        } finally {
          db.close();
        }
      },
      async close() {
        rmSync(directory, { recursive: true, force: true });
      },
    };
  },
};

/** PostgreSQL: a fresh database `tenon_demo_<pid>_<random>`, dropped (with force) at close. */
export const postgresDemoEngine: DemoEngine = {
  name: "PostgreSQL",
  async open() {
    const name = `tenon_demo_${process.pid}_${randomBytes(3).toString("hex")}`;
    const admin = new pg.Client({ connectionString: postgresUrl });
    admin.on("error", () => {});
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(postgresUrl);
    url.pathname = `/${name}`;
    const direct = new pg.Client({ connectionString: url.href });
    direct.on("error", () => {});
    await direct.connect();
    const directory = tempDirectory();
    const logFile = join(directory, "http.log");
    return {
      money: (stored) => Number(stored),
      env: { DATABASE_URL: url.href, LOG_FILE: logFile },
      logFile,
      async rows(sql) {
        return (await direct.query(sql)).rows as Record<string, unknown>[];
      },
      async close() {
        try {
          await direct.end();
          await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        } finally {
          await admin.end();
          rmSync(directory, { recursive: true, force: true });
        }
      },
    };
  },
};

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
      const name = `tenon_demo_${process.pid}_${randomBytes(3).toString("hex")}`;
      const url = new URL(server);
      const direct = await createConnection({
        host: url.hostname,
        port: url.port === "" ? 3306 : Number(url.port),
        user: decodeURIComponent(url.username),
        password: url.password === "" ? undefined : decodeURIComponent(url.password),
      });
      for (const sql of directSetup) await direct.query(sql);
      await direct.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
      await direct.query(`USE ${name}`);
      url.pathname = `/${name}`;
      const directory = tempDirectory();
      const logFile = join(directory, "http.log");
      return {
        money: (stored) => Number(stored),
        env: { DATABASE_URL: url.href, LOG_FILE: logFile },
        logFile,
        async rows(sql) {
          return (await direct.query(sql)) as Record<string, unknown>[];
        },
        async close() {
          try {
            await direct.query(`DROP DATABASE IF EXISTS ${name}`);
          } finally {
            await direct.end();
            rmSync(directory, { recursive: true, force: true });
          }
        },
      };
    },
  };
}
