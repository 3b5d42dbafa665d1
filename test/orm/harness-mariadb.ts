import { randomBytes } from "node:crypto";
import { createConnection, type Connection } from "mariadb";
import type { Database } from "tenon";
import { MariaDbDatabase } from "tenon/mariadb";
import type { EngineHarness, TestDatabase } from "./harness.js";

/** The server the MariaDB suites run against: `TENON_TEST_MARIADB_URL`, or the local test server. */
export const mariaDbUrl = process.env.TENON_TEST_MARIADB_URL ?? "mariadb://root@127.0.0.1:3306/test";

function connectionOptions(database?: string): { host: string; port: number; user: string; password?: string; database?: string } {
  const url = new URL(mariaDbUrl);
  return {
    host: url.hostname,
    port: url.port === "" ? 3306 : Number(url.port),
    user: decodeURIComponent(url.username),
    password: url.password === "" ? undefined : decodeURIComponent(url.password),
    database,
  };
}

/** Answers why the MariaDB test server cannot be used, or undefined when it can. */
export async function mariaDbUnreachable(): Promise<string | undefined> {
  let connection: Connection | undefined;
  try {
    connection = await createConnection({ ...connectionOptions(), connectTimeout: 5000 });
    await connection.query("SELECT 1");
    return undefined;
  } catch (error) {
    return `MariaDB at ${mariaDbUrl.replace(/\/\/[^@/]*@/, "//")} is not reachable (${(error as Error).message})`;
  } finally {
    await connection?.end().catch(() => {});
  }
}

/** A MariaDB test database: a database of its own, dropped at close. */
export interface MariaDbTestDatabase extends TestDatabase {
  /** The database under test. */
  readonly database: MariaDbDatabase;
  /** The name of the database this test uses. */
  readonly name: string;
  /** Opens another pool on the same database (closed by `close()` too). */
  openDatabase(options?: { poolSize?: number; statementTimeout?: number }): MariaDbDatabase;
  /** The direct connection the harness reads and writes with (session time zone as the server sets it). */
  readonly direct: Connection;
}

/** Opens a fresh database `tenon_test_<pid>_<random>` and a pool on it. */
export async function openMariaDb(options: { poolSize?: number } = {}): Promise<MariaDbTestDatabase> {
  const name = `tenon_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  const direct = await createConnection({
    ...connectionOptions(),
    dateStrings: true,
    typeCast: (column, next) => {
      if (column.type !== "DATETIME") return next();
      const text = column.string();
      return text === null ? null : new Date(`${text.replace(" ", "T")}Z`);
    },
  });
  await direct.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
  await direct.query(`USE ${name}`);
  const databases: Database[] = [];
  const openDatabase = (more: { poolSize?: number; statementTimeout?: number } = {}): MariaDbDatabase => {
    const url = new URL(mariaDbUrl);
    url.pathname = `/${name}`;
    const database = new MariaDbDatabase({
      connectionString: url.href,
      poolSize: more.poolSize ?? 4,
      statementTimeout: more.statementTimeout,
    });
    databases.push(database);
    return database;
  };
  const database = openDatabase(options);
  return {
    database,
    name,
    direct,
    openDatabase,
    async exec(sql: string): Promise<void> {
      await direct.query(sql);
    },
    async rows(sql: string, parameters: unknown[] = []): Promise<Record<string, unknown>[]> {
      return (await direct.query(sql, parameters)) as Record<string, unknown>[];
    },
    async close(): Promise<void> {
      try {
        for (const each of databases) await each.close();
        await direct.query(`DROP DATABASE ${name}`);
      } finally {
        await direct.end();
      }
    },
  };
}

/** MariaDB 10.3 or later, each suite in a database of its own. */
export const mariaDbHarness: EngineHarness = {
  name: "MariaDB",
  types: {
    int32: "INT",
    int64: "BIGINT",
    float: "DOUBLE",
    decimal: (precision, scale) => `DECIMAL(${precision}, ${scale})`,
    text: "TEXT",
    varchar: (size) => `VARCHAR(${size})`,
    boolean: "BOOLEAN",
    timestamp: "DATETIME(3)",
    blob: "LONGBLOB",
  },
  hasSequences: true,
  storedDecimal: (text) => text,
  open: () => openMariaDb(),
};
