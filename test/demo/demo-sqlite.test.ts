// The end-to-end demo suite on SQLite (a temporary file).
import { sqliteDemoEngine } from "./demo-engines.js";
import { defineDemoSuite } from "./demo-suite.js";

defineDemoSuite(sqliteDemoEngine);
