// Faults on PostgreSQL: a throwaway server (initdb + postgres on a free port) restarted under load.
import { reportUnreachable } from "../orm/engine-availability.js";
import { loadRowsOf } from "../support/reconcile.js";
import { createPostgresScratch } from "../support/scratch-database.js";
import { startThrowawayPostgres, throwawayPostgresUnavailable } from "../support/throwaway-postgres.js";
import { defineDatabaseRestartFaults } from "./faults-database-restart-suite.js";

const reason = await throwawayPostgresUnavailable();
if (reason !== undefined) reportUnreachable("PostgreSQL", reason, "database restart faults");
else {
  defineDatabaseRestartFaults("PostgreSQL", async () => {
    const server = await startThrowawayPostgres();
    // Read after the restart on a fresh connection (the first one would be gone with the server).
    const scratch = await createPostgresScratch(server.url, { prefix: "tenon_faults", retry: true });
    return {
      name: "PostgreSQL",
      url: scratch.url,
      stop: () => server.stop("fast"),
      start: () => server.start(),
      rows: async (sql) => loadRowsOf(await scratch.rows(sql)),
      async close() {
        // The test's own connection ends before the server goes: an idle connection cut by the server is an
        // uncaught error in the MariaDB driver.
        try {
          await scratch.close();
        } finally {
          await server.close();
        }
      },
    };
  });
}
