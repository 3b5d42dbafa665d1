import { reportUnreachable } from "../orm/engine-availability.js";
import { postgresHarness, postgresUnreachable } from "../orm/harness-postgres.js";
import { schemaSuite } from "./schema-suite.js";

const reason = await postgresUnreachable();
if (reason === undefined) schemaSuite(postgresHarness);
else reportUnreachable("PostgreSQL", reason, "schema suite");
