import { PostgresDatabase } from "tenon/postgres";
import type { PgBouncer } from "../support/pgbouncer.js";
import { createPostgresScratch } from "../support/scratch-database.js";
import type { EngineHarness, TestDatabase } from "./harness.js";
import { numberPlaceholders, postgresHarness, postgresUrl } from "./harness-postgres.js";

/**
 * A database `tenon_pgb_<pid>_<random>` of its own on the test server, reached by Tenon through PgBouncer
 * in transaction mode with `prepareStatements: false`; the direct connection (schema scripts, checks) goes
 * to the server itself. A database rather than a schema: PgBouncer does not pass a `search_path` given at
 * connect time on to the server connections it shares.
 */
export async function openThroughPgBouncer(bouncer: PgBouncer): Promise<TestDatabase & { readonly name: string }> {
  const scratch = await createPostgresScratch(postgresUrl, { prefix: "tenon_pgb" });
  const database = new PostgresDatabase({ connectionString: bouncer.url(scratch.name), prepareStatements: false, poolSize: 4 });
  return {
    database,
    name: scratch.name,
    exec: (sql: string) => scratch.exec(sql),
    rows: (sql: string, parameters: unknown[] = []) => scratch.rows(numberPlaceholders(sql), parameters),
    async close(): Promise<void> {
      try {
        await database.close();
      } finally {
        await scratch.close();
      }
    },
  };
}

/** PostgreSQL through PgBouncer in transaction mode: the same types and sequences as PostgreSQL. */
export function pgBouncerHarness(bouncer: PgBouncer): EngineHarness {
  return { ...postgresHarness, name: "PostgreSQL through PgBouncer", open: () => openThroughPgBouncer(bouncer) };
}
