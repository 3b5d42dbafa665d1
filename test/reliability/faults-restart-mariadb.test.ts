// Faults on MariaDB: a throwaway server (mariadb-install-db + mariadbd on a free port) restarted under load.
import { createMariaDbScratch } from "../support/scratch-database.js";
import { startThrowawayMariaDb, throwawayMariaDbUnavailable } from "../support/throwaway-mariadb.js";
import { defineThrowawayRestartFaults } from "./faults-database-restart-suite.js";

await defineThrowawayRestartFaults({
  name: "MariaDB",
  unavailable: throwawayMariaDbUnavailable,
  start: startThrowawayMariaDb,
  createScratch: createMariaDbScratch,
});
