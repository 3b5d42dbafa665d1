import { reportUnreachable } from "../orm/engine-availability.js";
import { mariaDbHarness, mariaDbUnreachable } from "../orm/harness-mariadb.js";
import { schemaSuite } from "./schema-suite.js";

const reason = await mariaDbUnreachable();
if (reason === undefined) schemaSuite(mariaDbHarness);
else reportUnreachable("MariaDB", reason, "schema suite");
