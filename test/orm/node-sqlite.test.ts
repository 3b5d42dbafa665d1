// The ORM suite on the embedded engine through Node.js's own node:sqlite driver, as sqlite.test.ts runs it
// through better-sqlite3. On a line without node:sqlite (Node.js 20) it is shown as skipped with the reason;
// on 22.16 and later it always runs, so a driver that fails to load there fails here.
import { test } from "node:test";
import { nodeSqliteAbsence } from "../support/sqlite-drivers.js";
import { sqliteHarnessFor } from "./harness.js";
import { engineSuites } from "./suite/index.js";

const absence = nodeSqliteAbsence();
if (absence === undefined) for (const suite of engineSuites) suite(sqliteHarnessFor("node:sqlite"));
else test("the ORM suite on node:sqlite", { skip: absence }, () => {});
