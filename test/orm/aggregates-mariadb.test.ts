import { aggregateSuite } from "./aggregate-suite.js";
import { reportUnreachable } from "./engine-availability.js";
import { mariaDbHarness, mariaDbUnreachable } from "./harness-mariadb.js";

const reason = await mariaDbUnreachable();
if (reason === undefined) aggregateSuite(mariaDbHarness);
else reportUnreachable("MariaDB", reason, "aggregate suite");
