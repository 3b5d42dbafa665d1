// The end-to-end demo suite on SQLite through node:sqlite (SQLITE_DRIVER=node:sqlite), as demo-sqlite.test.ts
// runs it through better-sqlite3. On a line without node:sqlite (Node.js 20) it is shown as skipped with the
// reason; on 22.16 and later it always runs.
import { test } from "node:test";
import { nodeSqliteAbsence } from "../support/sqlite-drivers.js";
import { sqliteDemoEngineWith } from "./demo-engines.js";
import { defineDemoSuite } from "./demo-suite.js";

const absence = nodeSqliteAbsence();
if (absence === undefined) defineDemoSuite(sqliteDemoEngineWith("node:sqlite"));
else test("the demo on SQLite (node:sqlite)", { skip: absence }, () => {});
