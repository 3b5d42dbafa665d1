// The demo's policies end to end on MariaDB (a throwaway database); a loud skip when the server is not
// reachable, a failure under CI=true.
import { reportUnreachable } from "../orm/engine-availability.js";
import { mariaDbUnreachable } from "../orm/harness-mariadb.js";
import { mariaDbDemoEngine } from "./demo-engines.js";
import { defineDemoPolicySuite } from "./demo-policy-suite.js";

const reason = await mariaDbUnreachable();
if (reason === undefined) defineDemoPolicySuite(mariaDbDemoEngine);
else reportUnreachable("MariaDB", reason, "demo policy suite");
