import { randomBytes } from "node:crypto";
import pg from "pg";
import { PostgresDatabase } from "tenon/postgres";
import type { PgBouncer } from "../support/pgbouncer.js";
import type { EngineHarness, TestDatabase } from "./harness.js";
import { numberPlaceholders, postgresHarness, postgresUrl } from "./harness-postgres.js";

/**
 * A database `tenon_pgb_<pid>_<random>` of its own on the test server, reached by Tenon through PgBouncer
 * in transaction mode with `prepareStatements: false`; the direct connection (schema scripts, checks) goes
 * to the server itself. A database rather than a schema: PgBouncer does not pass a `search_path` given at
 * connect time on to the server connections it shares.
 */
export async function openThroughPgBouncer(bouncer: PgBouncer): Promise<TestDatabase & { readonly name: string }> {
  const name = `tenon_pgb_${process.pid}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  admin.on("error", () => {});
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  const direct = new pg.Client({ connectionString: url.href });
  direct.on("error", () => {});
  await direct.connect();
  const database = new PostgresDatabase({ connectionString: bouncer.url(name), prepareStatements: false, poolSize: 4 });
  return {
    database,
    name,
    async exec(sql: string): Promise<void> {
      await direct.query(sql);
    },
    async rows(sql: string, parameters: unknown[] = []): Promise<Record<string, unknown>[]> {
      return (await direct.query(numberPlaceholders(sql), parameters)).rows as Record<string, unknown>[];
    },
    async close(): Promise<void> {
      try {
        await database.close();
        await direct.end();
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    },
  };
}

/** PostgreSQL through PgBouncer in transaction mode: the same types and sequences as PostgreSQL. */
export function pgBouncerHarness(bouncer: PgBouncer): EngineHarness {
  return { ...postgresHarness, name: "PostgreSQL through PgBouncer", open: () => openThroughPgBouncer(bouncer) };
}
