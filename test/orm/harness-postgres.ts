import { randomBytes } from "node:crypto";
import pg from "pg";
import type { Database } from "tenon";
import { PostgresDatabase, type PostgresOptions } from "tenon/postgres";
import type { EngineHarness, TestDatabase } from "./harness.js";

/** The server the PostgreSQL suites run against: `TENON_TEST_POSTGRES_URL`, or the local test server. */
export const postgresUrl = process.env.TENON_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** Answers why the PostgreSQL test server cannot be used, or undefined when it can. */
export async function postgresUnreachable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 5000 });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
    return undefined;
  } catch (error) {
    return `PostgreSQL at ${postgresUrl.replace(/\/\/[^@/]*@/, "//")} is not reachable (${(error as Error).message || (error as { code?: string }).code})`;
  } finally {
    await client.end().catch(() => {});
  }
}

/** A PostgreSQL test database: a schema of its own, dropped at close. */
export interface PostgresTestDatabase extends TestDatabase {
  /** The database under test. */
  readonly database: PostgresDatabase;
  /** The schema this test database lives in. */
  readonly schema: string;
  /** Opens another pool on the same schema (closed by `close()` too). */
  openDatabase(options?: { poolSize?: number; statementTimeout?: number }): PostgresDatabase;
}

/** Where `openPostgres` opens its schema: the test server, or a cluster (Tenon through every node, the test's own connection to its primary). */
export interface PostgresPlace {
  /** What Tenon connects to (default the test server). */
  readonly url?: string;
  /** What the test's direct connection uses (default `url`). */
  readonly directUrl?: string;
  /** More options of every pool opened (replica reads, say). */
  readonly databaseOptions?: Partial<PostgresOptions>;
}

/** Opens a fresh schema `tenon_test_<pid>_<random>` and a pool whose connections use it. */
export async function openPostgres(options: { poolSize?: number } = {}, place: PostgresPlace = {}): Promise<PostgresTestDatabase> {
  const schema = `tenon_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  const url = place.url ?? postgresUrl;
  const direct = new pg.Client({ connectionString: place.directUrl ?? url, options: `-c search_path=${schema}` });
  direct.on("error", () => {});
  await direct.connect();
  await direct.query(`CREATE SCHEMA ${schema}`);
  const databases: Database[] = [];
  const openDatabase = (more: { poolSize?: number; statementTimeout?: number } = {}): PostgresDatabase => {
    const database = new PostgresDatabase({
      ...place.databaseOptions,
      connectionString: url,
      schema,
      poolSize: more.poolSize ?? 4,
      statementTimeout: more.statementTimeout,
    });
    databases.push(database);
    return database;
  };
  const database = openDatabase(options);
  return {
    database,
    schema,
    openDatabase,
    async exec(sql: string): Promise<void> {
      await direct.query(sql);
    },
    async rows(sql: string, parameters: unknown[] = []): Promise<Record<string, unknown>[]> {
      return (await direct.query(numberPlaceholders(sql), parameters)).rows as Record<string, unknown>[];
    },
    async close(): Promise<void> {
      try {
        for (const each of databases) await each.close();
        await direct.query(`DROP SCHEMA ${schema} CASCADE`);
      } finally {
        await direct.end();
      }
    },
  };
}

/** PostgreSQL 10 or later (or a compatible engine), each suite in a schema of its own. */
export const postgresHarness: EngineHarness = {
  name: "PostgreSQL",
  types: {
    int32: "INTEGER",
    int64: "BIGINT",
    float: "DOUBLE PRECISION",
    decimal: (precision, scale) => `NUMERIC(${precision}, ${scale})`,
    text: "TEXT",
    varchar: (size) => `VARCHAR(${size})`,
    boolean: "BOOLEAN",
    timestamp: "TIMESTAMPTZ",
    blob: "BYTEA",
  },
  hasSequences: true,
  storedDecimal: (text) => text,
  open: () => openPostgres(),
};

/** Lets the suites write `?` placeholders in their direct SQL: turns them into `$1`, `$2`... outside quotes. */
export function numberPlaceholders(sql: string): string {
  let index = 0;
  let out = "";
  let quote: string | undefined;
  for (const ch of sql) {
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else if (ch === "?") {
      out += `$${++index}`;
    } else {
      out += ch;
    }
  }
  return out;
}
