// Faults on MariaDB: a throwaway server (mariadb-install-db + mariadbd on a free port) restarted under load.
import { createConnection } from "mariadb";
import { reportUnreachable } from "../orm/engine-availability.js";
import { loadRowsOf } from "../support/reconcile.js";
import { startThrowawayMariaDb, throwawayMariaDbUnavailable } from "../support/throwaway-mariadb.js";
import { defineDatabaseRestartFaults } from "./faults-database-restart-suite.js";

const reason = await throwawayMariaDbUnavailable();
if (reason !== undefined) reportUnreachable("MariaDB", reason, "database restart faults");
else {
  defineDatabaseRestartFaults("MariaDB", async () => {
    const server = await startThrowawayMariaDb();
    const connect = () => createConnection({ host: "127.0.0.1", port: server.port, user: "root" });
    const admin = await connect();
    await admin.query("CREATE DATABASE demo CHARACTER SET utf8mb4");
    await admin.end();
    return {
      name: "MariaDB",
      url: server.urlOf("demo"),
      stop: () => server.stop("fast"),
      start: () => server.start(),
      async rows(sql) {
        const client = await connect();
        try {
          await client.query("USE demo");
          return loadRowsOf((await client.query(sql)) as Record<string, unknown>[]);
        } finally {
          await client.end();
        }
      },
      close: () => server.close(),
    };
  });
}
