// The ORM suite on PostgreSQL through PgBouncer in transaction mode (prepared statements off), started for
// this file on a free port and stopped at its end, also when a test fails. Under CI=true a PgBouncer that
// cannot start, or a PostgreSQL that is not reachable, is a failure, never a skip.
import { after } from "node:test";
import { pgBouncerOrReason } from "../support/pgbouncer.js";
import { reportUnreachable } from "./engine-availability.js";
import { pgBouncerHarness } from "./harness-pgbouncer.js";
import { postgresUnreachable, postgresUrl } from "./harness-postgres.js";
import { engineSuites } from "./suite/index.js";

const bouncer = await pgBouncerOrReason(postgresUrl, await postgresUnreachable());
if (typeof bouncer === "string") reportUnreachable("PgBouncer", bouncer);
else {
  after(() => bouncer.stop());
  for (const suite of engineSuites) suite(pgBouncerHarness(bouncer));
}
