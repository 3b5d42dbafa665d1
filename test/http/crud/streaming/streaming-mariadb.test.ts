// Streamed exports and NDJSON imports on MariaDB, through real sockets (streaming-fixtures.ts).
import { reportUnreachable } from "../../../orm/engine-availability.js";
import { defineExportSuite } from "./export-suite.js";
import { defineImportSuite } from "./import-suite.js";
import { mariaDbStreaming } from "./streaming-fixtures.js";

const reason = await mariaDbStreaming.unreachable();
if (reason !== undefined) reportUnreachable("MariaDB", reason, "streaming suite");
else {
  defineExportSuite(mariaDbStreaming);
  defineImportSuite(mariaDbStreaming);
}
