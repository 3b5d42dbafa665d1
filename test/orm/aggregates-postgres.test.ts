import { aggregateSuite } from "./aggregate-suite.js";
import { reportUnreachable } from "./engine-availability.js";
import { postgresHarness, postgresUnreachable } from "./harness-postgres.js";

const reason = await postgresUnreachable();
if (reason === undefined) aggregateSuite(postgresHarness);
else reportUnreachable("PostgreSQL", reason, "aggregate suite");
