// PostgreSQL on a Patroni cluster (three PostgreSQL 15 nodes, etcd, Patroni 3), started once for this file on
// free ports (test/support/patroni-cluster.ts) and stopped at its end, also when a test fails. Tenon reaches every
// node and finds the primary itself. In order: the ORM suite and the demo's end-to-end suite with reads on the
// replicas (commits wait until both replicas have applied them, `synchronous_commit = remote_apply`, so that a
// session reads what another committed before it); then, with commits waiting only for one standby's flush, the
// read replicas' own tests, read-your-writes with replay paused, and failover under load with synchronous_mode
// on and off; last, that the cluster's health check counts synchronous standbys rather than assuming them. Under
// CI=true a cluster that cannot start is a failure, never a skip.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { patroniDemoEngine } from "../demo/demo-engines.js";
import { defineReadYourWrites } from "../demo/demo-read-your-writes.js";
import { defineDemoSuite } from "../demo/demo-suite.js";
import { defineReplicaReads } from "../engines/postgres/replica-reads-suite.js";
import { definePatroniFailover } from "../reliability/faults-failover-patroni.js";
import { type PatroniCluster, patroniUnavailable, startPatroniCluster } from "../support/patroni-cluster.js";
import { reportUnreachable } from "./engine-availability.js";
import { patroniHarness, type ReadTally } from "./harness-patroni.js";
import { engineSuites } from "./suite/index.js";

let cluster: PatroniCluster | undefined;
let reason = patroniUnavailable();
if (reason === undefined) {
  try {
    cluster = await startPatroniCluster({ synchronousMode: true, synchronousNodeCount: 2, synchronousCommit: "remote_apply" });
  } catch (error) {
    reason = `the cluster did not start: ${(error as Error).message}`;
  }
}
if (cluster !== undefined) {
  const running = cluster;
  after(() => running.stop());
  const tally: ReadTally = { replica: 0, primary: 0 };
  for (const suite of engineSuites) suite(patroniHarness(running, tally));
  test("the ORM suite's reads outside writes were served by the replicas", () => {
    console.log(`ORM suite on Patroni: ${tally.replica} read statements on replicas, ${tally.primary} on the primary`);
    assert.ok(tally.replica > 0, JSON.stringify(tally));
  });
  defineDemoSuite(patroniDemoEngine(() => running));
  defineReplicaReads(() => running);
  defineReadYourWrites(() => running);
  definePatroniFailover(() => running);
  test("the cluster is healthy with two synchronous standbys only once both are: an asynchronous one never passes", async () => {
    // What the suites above rely on before they read on replicas. An empty synchronous_standby_names (outside
    // synchronous_mode here, and in synchronous_mode before Patroni has assigned a standby) makes every commit
    // asynchronous; the cluster once passed for healthy then, and a suite read on a replica a row it had not
    // replayed yet.
    await running.configure({ synchronous_mode: false });
    await running.waitHealthy();
    await assert.rejects(running.waitHealthy(3000, 2), /0 synchronous of 2 asked for \(synchronous_standby_names ''\)/);
  });
} else {
  reportUnreachable("PostgreSQL on Patroni", reason ?? "unknown");
}
