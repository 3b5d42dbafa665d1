// The shutdown suite on SQLite (a temporary file).
import { sqliteDemoEngine } from "../demo/demo-engines.js";
import { defineShutdownSuite } from "./shutdown-suite.js";

defineShutdownSuite(sqliteDemoEngine);
