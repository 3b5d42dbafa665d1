// The demo's policies end to end on PostgreSQL (a throwaway database); a loud skip when the server is not
// reachable, a failure under CI=true.
import { reportUnreachable } from "../orm/engine-availability.js";
import { postgresUnreachable } from "../orm/harness-postgres.js";
import { postgresDemoEngine } from "./demo-engines.js";
import { defineDemoPolicySuite } from "./demo-policy-suite.js";

const reason = await postgresUnreachable();
if (reason === undefined) defineDemoPolicySuite(postgresDemoEngine);
else reportUnreachable("PostgreSQL", reason, "demo policy suite");
