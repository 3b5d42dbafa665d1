// The change feed's proof on a three-node MariaDB Galera cluster behind HAProxy (test/support/galera-cluster.ts),
// started for this file and stopped at its end: the four workers write and read through HAProxy, so their
// transactions reach all three nodes. It starts a cluster of its own, so scripts/run-tests.mjs runs it after
// the other files, alone. Under CI=true a cluster that cannot start is a failure, never a skip.
import { after } from "node:test";
import { mariaDbDemoEngineAt } from "../demo/demo-engines.js";
import { reportUnreachable } from "../orm/engine-availability.js";
import { galeraUnavailable, startGaleraCluster, type GaleraCluster } from "../support/galera-cluster.js";
import { defineChangeFeedProof, proofSize } from "./change-feed-proof-suite.js";

let cluster: GaleraCluster | undefined;
let reason = galeraUnavailable();
if (reason === undefined) {
  try {
    cluster = await startGaleraCluster();
  } catch (error) {
    reason = `the cluster did not start: ${(error as Error).message}`;
  }
}
if (cluster !== undefined) {
  const running = cluster;
  after(() => running.stop());
  const engine = mariaDbDemoEngineAt("MariaDB Galera", running.url(), ["SET SESSION wsrep_sync_wait = 1"]);
  defineChangeFeedProof(engine, proofSize({ writes: 800, downMs: 10_000 }), { GALERA: "1" });
} else {
  reportUnreachable("MariaDB Galera", reason ?? "unknown");
}
