import { sqliteHarness } from "../orm/harness.js";
import { jsonSuite } from "./json-suite.js";

jsonSuite(sqliteHarness);
