// Streamed exports and NDJSON imports on SQLite through node:sqlite (a cursor's statement stepped with its
// iterate() on a read-only DatabaseSync), as streaming-sqlite.test.ts runs them through better-sqlite3. On a line
// without node:sqlite (Node.js 20) it is shown as skipped with the reason; on 22.16 and later it always runs.
import { test } from "node:test";
import { nodeSqliteAbsence } from "../../../support/sqlite-drivers.js";
import { defineExportSuite } from "./export-suite.js";
import { defineImportSuite } from "./import-suite.js";
import { sqliteStreamingWith } from "./streaming-fixtures.js";

const absence = nodeSqliteAbsence();
if (absence === undefined) {
  defineExportSuite(sqliteStreamingWith("node:sqlite"));
  defineImportSuite(sqliteStreamingWith("node:sqlite"));
} else test("streamed exports and imports on SQLite (node:sqlite)", { skip: absence }, () => {});
