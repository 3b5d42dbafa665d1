// Faults behind PgBouncer: PgBouncer in transaction mode (a process of this test's own on a free port, in front
// of the shared PostgreSQL server, which is never restarted) stopped and started again under load, with the
// demo's prepared statements off (`?prepareStatements=false`).
import { after } from "node:test";
import { reportUnreachable } from "../orm/engine-availability.js";
import { postgresUnreachable, postgresUrl } from "../orm/harness-postgres.js";
import { pgBouncerOrReason } from "../support/pgbouncer.js";
import { loadRowsOf } from "../support/reconcile.js";
import { createPostgresScratch } from "../support/scratch-database.js";
import { defineDatabaseRestartFaults } from "./faults-database-restart-suite.js";

const bouncer = await pgBouncerOrReason(postgresUrl, await postgresUnreachable());
if (typeof bouncer === "string") reportUnreachable("PgBouncer", bouncer, "restart faults");
else {
  const running = bouncer;
  after(() => running.stop());
  defineDatabaseRestartFaults(
    "PostgreSQL through PgBouncer",
    async () => {
      // The rows are read on the server directly: only the pooler goes away.
      const scratch = await createPostgresScratch(postgresUrl, { prefix: "tenon_pgb_faults" });
      return {
        name: "PostgreSQL through PgBouncer",
        url: `${running.url(scratch.name)}?prepareStatements=false`,
        stop: () => running.kill(),
        start: () => running.start(),
        rows: async (sql) => loadRowsOf(await scratch.rows(sql)),
        close: () => scratch.close(),
      };
    },
    { what: "PgBouncer (transaction mode)" },
  );
}
