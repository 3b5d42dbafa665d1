// A stand-in for a test run that gets killed: starts PgBouncer (the quickest of the servers tests start),
// prints its directory and port as one JSON line, and waits to be killed. Used by orphaned-servers.test.ts.
import { startPgBouncer } from "../support/pgbouncer.js";

const bouncer = await startPgBouncer();
console.log(JSON.stringify({ directory: bouncer.directory, port: bouncer.port }));
setInterval(() => {}, 60_000);
