// Faults on PostgreSQL: a throwaway server (initdb + postgres on a free port) restarted under load.
import { createPostgresScratch } from "../support/scratch-database.js";
import { startThrowawayPostgres, throwawayPostgresUnavailable } from "../support/throwaway-postgres.js";
import { defineThrowawayRestartFaults } from "./faults-database-restart-suite.js";

await defineThrowawayRestartFaults({
  name: "PostgreSQL",
  unavailable: throwawayPostgresUnavailable,
  start: startThrowawayPostgres,
  createScratch: createPostgresScratch,
});
