import { reportUnreachable } from "./engine-availability.js";
import { postgresHarness, postgresUnreachable } from "./harness-postgres.js";
import { engineSuites } from "./suite/index.js";

const reason = await postgresUnreachable();
if (reason === undefined) for (const suite of engineSuites) suite(postgresHarness);
else reportUnreachable("PostgreSQL", reason);
