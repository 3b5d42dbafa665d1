import { randomBytes } from "node:crypto";
import { createConnection, type Connection } from "mariadb";
import type { Database } from "tenon";
import { MariaDbDatabase } from "tenon/mariadb";
import type { EngineHarness, SqlTypes, TestDatabase } from "./harness.js";

/** The server the MariaDB suites run against: `TENON_TEST_MARIADB_URL`, or the local test server. */
export const mariaDbUrl = process.env.TENON_TEST_MARIADB_URL ?? "mariadb://root@127.0.0.1:3306/test";

function connectionOptions(
  database?: string,
  server = mariaDbUrl,
): { host: string; port: number; user: string; password?: string; database?: string } {
  const url = new URL(server);
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

/** Where `openMariaDb` opens its database. */
export interface MariaDbServerOptions {
  /** Pool size of the first pool (default 4). */
  readonly poolSize?: number;
  /** The server (default `mariaDbUrl`): a Galera cluster's HAProxy for the scale-out suites. */
  readonly url?: string;
  /**
   * Session settings of the direct connection: through a load balancer it reads from any node, so on Galera
   * it waits for the writes the cluster has committed (`SET SESSION wsrep_sync_wait = 1`).
   */
  readonly directSetup?: readonly string[];
  /**
   * The pools' `wsrepSyncWait` on a Galera node (default the database's own, 1: reads wait). The suites create
   * their tables on the direct connection and write at once through other nodes, so they also make writes wait
   * (7): a node that has not applied the CREATE TABLE yet would answer that the table does not exist.
   */
  readonly wsrepSyncWait?: number;
}

/** Opens a fresh database `tenon_test_<pid>_<random>` and a pool on it. */
export async function openMariaDb(options: MariaDbServerOptions = {}): Promise<MariaDbTestDatabase> {
  const server = options.url ?? mariaDbUrl;
  const name = `tenon_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  const direct = await createConnection({
    ...connectionOptions(undefined, server),
    dateStrings: true,
    typeCast: (column, next) => {
      if (column.type !== "DATETIME") return next();
      const text = column.string();
      return text === null ? null : new Date(`${text.replace(" ", "T")}Z`);
    },
  });
  await direct.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
  await direct.query(`USE ${name}`);
  for (const sql of options.directSetup ?? []) await direct.query(sql);
  const databases: Database[] = [];
  const openDatabase = (more: { poolSize?: number; statementTimeout?: number } = {}): MariaDbDatabase => {
    const url = new URL(server);
    url.pathname = `/${name}`;
    const database = new MariaDbDatabase({
      connectionString: url.href,
      poolSize: more.poolSize ?? 4,
      statementTimeout: more.statementTimeout,
      wsrepSyncWait: options.wsrepSyncWait,
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

/** The SQL types of MariaDB. */
const mariaDbTypes: SqlTypes = {
  int32: "INT",
  int64: "BIGINT",
  float: "DOUBLE",
  decimal: (precision, scale) => `DECIMAL(${precision}, ${scale})`,
  text: "TEXT",
  varchar: (size) => `VARCHAR(${size})`,
  boolean: "BOOLEAN",
  timestamp: "DATETIME(3)",
  blob: "LONGBLOB",
};

/** MariaDB 10.3 or later, each suite in a database of its own. */
export const mariaDbHarness: EngineHarness = {
  name: "MariaDB",
  types: mariaDbTypes,
  hasSequences: true,
  storedDecimal: (text) => text,
  open: () => openMariaDb(),
};

/**
 * A Galera cluster reached at `url` (its HAProxy): each suite in a database of its own, sequences in the
 * only form Galera keeps distinct across nodes (`INCREMENT BY 0`, docs/engines.md).
 */
export function galeraHarness(url: string): EngineHarness {
  return {
    name: "MariaDB Galera",
    types: mariaDbTypes,
    hasSequences: true,
    storedDecimal: (text) => text,
    createSequence: (name) => `CREATE SEQUENCE ${name} INCREMENT BY 0`,
    // Galera refuses an ALTER SEQUENCE that does not restate INCREMENT BY 0 (error 1235).
    restartSequence: (name, value) => `ALTER SEQUENCE ${name} RESTART WITH ${value} INCREMENT BY 0`,
    multiPrimary: true,
    open: () => openMariaDb({ url, directSetup: ["SET SESSION wsrep_sync_wait = 1"], wsrepSyncWait: 7 }),
  };
}
