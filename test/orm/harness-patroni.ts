import type { PatroniCluster } from "../support/patroni-cluster.js";
import type { EngineHarness } from "./harness.js";
import { openPostgres, postgresHarness } from "./harness-postgres.js";

/** Read statements of the suite's pools, by where they ran, summed when each test database closes. */
export interface ReadTally {
  replica: number;
  primary: number;
}

/**
 * PostgreSQL on a Patroni cluster, each suite in a schema of its own: Tenon reaches every node (it finds the
 * primary itself) with `replicaReads` on, so that every read of a session that has not written goes to a
 * replica; the test's direct connection (schema scripts, checks) goes to the primary. `tally` sums where the
 * reads ran.
 */
export function patroniHarness(cluster: PatroniCluster, tally: ReadTally): EngineHarness {
  return {
    ...postgresHarness,
    name: "PostgreSQL on Patroni, reads on replicas",
    async open() {
      // Both replicas synchronous (remote_apply): a session then reads from either what another committed before.
      const leader = await cluster.waitHealthy(undefined, 2);
      const db = await openPostgres(
        {},
        { url: cluster.url(), directUrl: cluster.nodeUrl(leader), databaseOptions: { replicaReads: true } },
      );
      return {
        ...db,
        async close() {
          const reads = db.database.poolFigures().replicas?.reads;
          tally.replica += reads?.replica ?? 0;
          tally.primary += reads?.primary ?? 0;
          await db.close();
        },
      };
    },
  };
}
