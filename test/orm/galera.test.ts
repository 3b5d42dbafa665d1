// The ORM suite, Galera's own engine cases, the demo's end-to-end suite and failover under load (one node
// stopped and started) on a three-node MariaDB Galera cluster behind HAProxy, started once for this file on
// free ports (test/support/galera-cluster.ts) and stopped at its end, also when a test fails. Under CI=true a
// cluster that cannot start is a failure, never a skip.
import { after } from "node:test";
import { mariaDbDemoEngineAt } from "../demo/demo-engines.js";
import { defineDemoSuite } from "../demo/demo-suite.js";
import { galeraEngineSuite } from "../engines/mariadb/galera-suite.js";
import { galeraTokensSuite } from "../engines/mariadb/galera-tokens-suite.js";
import { defineGaleraFailover } from "../reliability/faults-failover-galera.js";
import { galeraUnavailable, startGaleraCluster, type GaleraCluster } from "../support/galera-cluster.js";
import { reportUnreachable } from "./engine-availability.js";
import { galeraHarness } from "./harness-mariadb.js";
import { engineSuites } from "./suite/index.js";

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
  for (const suite of engineSuites) suite(galeraHarness(running.url()));
  galeraEngineSuite(() => running);
  galeraTokensSuite(() => running);
  defineDemoSuite(mariaDbDemoEngineAt("MariaDB Galera", running.url(), ["SET SESSION wsrep_sync_wait = 1"]));
  defineGaleraFailover(() => running);
} else {
  reportUnreachable("MariaDB Galera", reason ?? "unknown");
}
