import { sqliteHarness } from "./harness.js";
import { engineSuites } from "./suite/index.js";

for (const suite of engineSuites) suite(sqliteHarness);
