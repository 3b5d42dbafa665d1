// Faults on PostgreSQL: a throwaway server (initdb + pg_ctl on a free port) restarted under load.
import pg from "pg";
import { reportUnreachable } from "../orm/engine-availability.js";
import { loadRowsOf } from "../support/reconcile.js";
import { startThrowawayPostgres, throwawayPostgresUnavailable } from "../support/throwaway-postgres.js";
import { defineDatabaseRestartFaults } from "./faults-database-restart-suite.js";

const reason = await throwawayPostgresUnavailable();
if (reason !== undefined) reportUnreachable("PostgreSQL", reason, "database restart faults");
else {
  defineDatabaseRestartFaults("PostgreSQL", async () => {
    const server = await startThrowawayPostgres();
    const admin = new pg.Client({ connectionString: server.url });
    admin.on("error", () => {});
    await admin.connect();
    await admin.query("CREATE DATABASE demo");
    await admin.end();
    return {
      name: "PostgreSQL",
      url: server.urlOf("demo"),
      stop: () => server.stop("fast"),
      start: () => server.start(),
      async rows(sql) {
        const client = new pg.Client({ connectionString: server.urlOf("demo") });
        client.on("error", () => {});
        await client.connect();
        try {
          return loadRowsOf((await client.query(sql)).rows as Record<string, unknown>[]);
        } finally {
          await client.end();
        }
      },
      close: () => server.close(),
    };
  });
}
