// Load with reconciliation on SQLite (a temporary file).
import { sqliteDemoEngine } from "../demo/demo-engines.js";
import { defineLoadReconciliation } from "./load-reconciliation-suite.js";

defineLoadReconciliation(sqliteDemoEngine);
