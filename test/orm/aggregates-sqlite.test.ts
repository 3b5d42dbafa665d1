import { aggregateSuite } from "./aggregate-suite.js";
import { sqliteHarness } from "./harness.js";

aggregateSuite(sqliteHarness);
