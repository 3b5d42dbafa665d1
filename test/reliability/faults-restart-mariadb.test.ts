// Faults on MariaDB: a throwaway server (mariadb-install-db + mariadbd on a free port) restarted under load.
import { reportUnreachable } from "../orm/engine-availability.js";
import { loadRowsOf } from "../support/reconcile.js";
import { createMariaDbScratch } from "../support/scratch-database.js";
import { startThrowawayMariaDb, throwawayMariaDbUnavailable } from "../support/throwaway-mariadb.js";
import { defineDatabaseRestartFaults } from "./faults-database-restart-suite.js";

const reason = await throwawayMariaDbUnavailable();
if (reason !== undefined) reportUnreachable("MariaDB", reason, "database restart faults");
else {
  defineDatabaseRestartFaults("MariaDB", async () => {
    const server = await startThrowawayMariaDb();
    // Read after the restart on a fresh connection (the first one would be gone with the server).
    const scratch = await createMariaDbScratch(server.url, { prefix: "tenon_faults", retry: true });
    return {
      name: "MariaDB",
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
