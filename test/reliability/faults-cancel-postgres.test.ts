// Statement cancel and statement timeout on PostgreSQL (the shared test server; nothing is restarted).
import pg from "pg";
import { PostgresDatabase } from "tenon/postgres";
import { reportUnreachable } from "../orm/engine-availability.js";
import { postgresUnreachable, postgresUrl } from "../orm/harness-postgres.js";
import { defineStatementCancelFaults } from "./faults-statement-cancel-suite.js";

const reason = await postgresUnreachable();
if (reason !== undefined) reportUnreachable("PostgreSQL", reason, "statement cancel faults");
else {
  defineStatementCancelFaults({
    name: "PostgreSQL",
    open: (statementTimeout) => new PostgresDatabase({ connectionString: postgresUrl, statementTimeout, poolSize: 2 }),
    sleepSql: (seconds, tag) => `SELECT pg_sleep(${seconds}) AS ${tag}`,
    async running(marker) {
      const client = new pg.Client({ connectionString: postgresUrl });
      client.on("error", () => {});
      await client.connect();
      try {
        const rows = await client.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query = $1", [marker]);
        return rows.rows[0].n as number;
      } finally {
        await client.end();
      }
    },
  });
}
