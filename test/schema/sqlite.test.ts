import { sqliteHarness } from "../orm/harness.js";
import { schemaSuite } from "./schema-suite.js";

schemaSuite(sqliteHarness);
