// Streamed exports and NDJSON imports on SQLite, through real sockets (streaming-fixtures.ts).
import { reportUnreachable } from "../../../orm/engine-availability.js";
import { defineExportSuite } from "./export-suite.js";
import { defineImportSuite } from "./import-suite.js";
import { sqliteStreaming } from "./streaming-fixtures.js";

const reason = await sqliteStreaming.unreachable();
if (reason !== undefined) reportUnreachable("SQLite", reason, "streaming suite");
else {
  defineExportSuite(sqliteStreaming);
  defineImportSuite(sqliteStreaming);
}
