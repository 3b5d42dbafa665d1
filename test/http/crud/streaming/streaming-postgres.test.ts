// Streamed exports and NDJSON imports on PostgreSQL, through real sockets (streaming-fixtures.ts).
import { reportUnreachable } from "../../../orm/engine-availability.js";
import { defineExportSuite } from "./export-suite.js";
import { defineImportSuite } from "./import-suite.js";
import { postgresStreaming } from "./streaming-fixtures.js";

const reason = await postgresStreaming.unreachable();
if (reason !== undefined) reportUnreachable("PostgreSQL", reason, "streaming suite");
else {
  defineExportSuite(postgresStreaming);
  defineImportSuite(postgresStreaming);
}
