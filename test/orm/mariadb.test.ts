import { reportUnreachable } from "./engine-availability.js";
import { mariaDbHarness, mariaDbUnreachable } from "./harness-mariadb.js";
import { engineSuites } from "./suite/index.js";

const reason = await mariaDbUnreachable();
if (reason === undefined) for (const suite of engineSuites) suite(mariaDbHarness);
else reportUnreachable("MariaDB", reason);
