// The demo's policies end to end on SQLite (a temporary file): the rules, the matrix, the hostile run.
import { sqliteDemoEngine } from "./demo-engines.js";
import { defineDemoPolicySuite } from "./demo-policy-suite.js";

defineDemoPolicySuite(sqliteDemoEngine);
