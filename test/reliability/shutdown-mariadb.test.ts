// The shutdown suite on MariaDB (a throwaway database); a loud skip when the server is not reachable,
// a failure under CI=true.
import { mariaDbDemoEngine } from "../demo/demo-engines.js";
import { reportUnreachable } from "../orm/engine-availability.js";
import { mariaDbUnreachable } from "../orm/harness-mariadb.js";
import { defineShutdownSuite } from "./shutdown-suite.js";

const reason = await mariaDbUnreachable();
if (reason === undefined) defineShutdownSuite(mariaDbDemoEngine);
else reportUnreachable("MariaDB", reason, "shutdown suite");
