// The end-to-end demo suite on PostgreSQL (a throwaway database); a loud skip when the server is not
// reachable, a failure under CI=true.
import { reportUnreachable } from "../orm/engine-availability.js";
import { postgresUnreachable } from "../orm/harness-postgres.js";
import { postgresDemoEngine } from "./demo-engines.js";
import { defineDemoSuite } from "./demo-suite.js";

const reason = await postgresUnreachable();
if (reason === undefined) defineDemoSuite(postgresDemoEngine);
else reportUnreachable("PostgreSQL", reason, "demo suite");
