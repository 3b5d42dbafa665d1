// Load with reconciliation on PostgreSQL (a throwaway database); a loud skip when the server is not reachable,
// a failure under CI=true.
import { postgresDemoEngine } from "../demo/demo-engines.js";
import { reportUnreachable } from "../orm/engine-availability.js";
import { postgresUnreachable } from "../orm/harness-postgres.js";
import { defineLoadReconciliation } from "./load-reconciliation-suite.js";

const reason = await postgresUnreachable();
if (reason === undefined) defineLoadReconciliation(postgresDemoEngine);
else reportUnreachable("PostgreSQL", reason, "load reconciliation");
