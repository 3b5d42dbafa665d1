// Failover on a Galera cluster: the demo runs through HAProxy on all three nodes while one node is stopped and
// started again under load. The cluster keeps acknowledging writes on the two nodes left, the demo's pool moves
// to them by itself, and reconciliation (read through a node that stayed up, tried again on a transient error)
// finds every acknowledged write and no refused one. Called by test/orm/galera.test.ts on the cluster it
// starts, so that CI starts one cluster.
import type { GaleraCluster } from "../support/galera-cluster.js";
import { loadRowsOf } from "../support/reconcile.js";
import { createMariaDbScratch } from "../support/scratch-database.js";
import { defineDatabaseRestartFaults } from "./faults-database-restart-suite.js";

/** The node stopped and started (not the one that bootstrapped the cluster). */
const faultyNode = 2;
/** The node the test's own connections use: it stays up throughout. */
const steadyNode = 0;

/** Defines the failover test on a running cluster. */
export function defineGaleraFailover(cluster: () => GaleraCluster): void {
  defineDatabaseRestartFaults(
    "MariaDB Galera",
    async () => {
      const running = cluster();
      const scratch = await createMariaDbScratch(running.nodeUrl(steadyNode), {
        prefix: "tenon_failover",
        // Reads wait until the node has applied what the cluster committed before them.
        directSetup: ["SET SESSION wsrep_sync_wait = 1"],
        retry: true,
      });
      return {
        name: "MariaDB Galera",
        url: running.url(scratch.name),
        stop: () => running.stopNode(faultyNode),
        start: () => running.startNode(faultyNode),
        rows: async (sql) => loadRowsOf(await scratch.rows(sql)),
        async close() {
          // The node is started again even when the test failed half-way, for the suites after this one.
          try {
            await running.startNode(faultyNode);
          } finally {
            await scratch.close();
          }
        },
      };
    },
    { what: `one node of three (node${faultyNode + 1})`, servedWhileAway: true },
  );
}
