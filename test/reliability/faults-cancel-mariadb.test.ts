// Statement cancel and statement timeout on MariaDB (the shared test server; nothing is restarted).
import { createConnection } from "mariadb";
import { MariaDbDatabase } from "tenon/mariadb";
import { reportUnreachable } from "../orm/engine-availability.js";
import { mariaDbUnreachable, mariaDbUrl } from "../orm/harness-mariadb.js";
import { defineStatementCancelFaults } from "./faults-statement-cancel-suite.js";

const reason = await mariaDbUnreachable();
if (reason !== undefined) reportUnreachable("MariaDB", reason, "statement cancel faults");
else {
  const url = new URL(mariaDbUrl);
  defineStatementCancelFaults({
    name: "MariaDB",
    open: (statementTimeout) => new MariaDbDatabase({ connectionString: mariaDbUrl, statementTimeout, poolSize: 2 }),
    sleepSql: (seconds, tag) => `SELECT SLEEP(${seconds}) AS ${tag}`,
    async running(marker) {
      const client = await createConnection({
        host: url.hostname,
        port: url.port === "" ? 3306 : Number(url.port),
        user: decodeURIComponent(url.username),
        password: url.password === "" ? undefined : decodeURIComponent(url.password),
      });
      try {
        const rows = (await client.query("SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO = ?", [marker])) as {
          n: bigint | number;
        }[];
        return Number(rows[0].n);
      } finally {
        await client.end();
      }
    },
  });
}
