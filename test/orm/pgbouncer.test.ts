// The ORM suite on PostgreSQL through PgBouncer in transaction mode (prepared statements off), started for
// this file on a free port and stopped at its end, also when a test fails. Under CI=true a PgBouncer that
// cannot start, or a PostgreSQL that is not reachable, is a failure, never a skip.
import { after } from "node:test";
import { type PgBouncer, pgBouncerUnavailable, startPgBouncer } from "../support/pgbouncer.js";
import { reportUnreachable } from "./engine-availability.js";
import { pgBouncerHarness } from "./harness-pgbouncer.js";
import { postgresUnreachable, postgresUrl } from "./harness-postgres.js";
import { engineSuites } from "./suite/index.js";

let bouncer: PgBouncer | undefined;
let reason = (await postgresUnreachable()) ?? pgBouncerUnavailable();
if (reason === undefined) {
  try {
    bouncer = await startPgBouncer({ server: postgresUrl });
  } catch (error) {
    reason = `PgBouncer did not start: ${(error as Error).message}`;
  }
}
if (bouncer !== undefined) {
  const running = bouncer;
  after(() => running.stop());
  for (const suite of engineSuites) suite(pgBouncerHarness(running));
} else {
  reportUnreachable("PgBouncer", reason ?? "unknown");
}
