// Load with reconciliation on MariaDB (a throwaway database); a loud skip when the server is not reachable,
// a failure under CI=true.
import { mariaDbDemoEngine } from "../demo/demo-engines.js";
import { reportUnreachable } from "../orm/engine-availability.js";
import { mariaDbUnreachable } from "../orm/harness-mariadb.js";
import { defineLoadReconciliation } from "./load-reconciliation-suite.js";

const reason = await mariaDbUnreachable();
if (reason === undefined) defineLoadReconciliation(mariaDbDemoEngine);
else reportUnreachable("MariaDB", reason, "load reconciliation");
