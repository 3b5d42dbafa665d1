// Consistency tokens on a Galera cluster, the same API as PostgreSQL's with replicas: a write answers the GTID its
// node had seen, and a session on another node given that token waits until its node has applied it before it
// reads. The second node is held back with FLUSH TABLES WITH READ LOCK (it stops applying the others' writes while
// the lock is held), so that a read there without the token shows what a late node shows. Called by
// test/orm/galera.test.ts on the cluster it starts.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Context, TransientDatabaseError } from "tenon";
import { MariaDbDatabase } from "tenon/mariadb";
import { createConnection } from "mariadb";
import { Company, insertCompany } from "../../orm/fixtures.js";
import { galeraHarness, type MariaDbTestDatabase, openMariaDb } from "../../orm/harness-mariadb.js";
import { createSchema } from "../../orm/schema.js";
import type { GaleraCluster } from "../../support/galera-cluster.js";

/** Defines the Galera consistency-token tests on a running cluster. */
export function galeraTokensSuite(cluster: () => GaleraCluster): void {
  describe("MariaDB Galera: consistency tokens, a late node waits for a client's own write", () => {
    let db: MariaDbTestDatabase;
    const pools: MariaDbDatabase[] = [];
    /** A pool on one node, reads not waiting for the cluster (`wsrepSyncWait: 0`) unless they carry a token. */
    const nodePool = (index: number, consistencyWait = 1000): MariaDbDatabase => {
      const pool = new MariaDbDatabase({
        connectionString: `${cluster().nodeUrl(index, db.name)}?consistencyTokens=true`,
        wsrepSyncWait: 0,
        consistencyWait,
        poolSize: 4,
      });
      pools.push(pool);
      return pool;
    };
    /** Holds node `index` back: it applies no write of the others until `release` is called. */
    const holdBack = async (index: number): Promise<() => Promise<void>> => {
      const url = new URL(cluster().nodeUrl(index));
      const connection = await createConnection({ host: url.hostname, port: Number(url.port), user: "root" });
      connection.on("error", () => {});
      await connection.query("FLUSH TABLES WITH READ LOCK");
      return async () => {
        await connection.query("UNLOCK TABLES");
        await connection.end();
      };
    };

    before(async () => {
      db = await openMariaDb({ url: cluster().url(), directSetup: ["SET SESSION wsrep_sync_wait = 1"] });
      await createSchema(galeraHarness(cluster().url()), db);
    });
    after(async () => {
      for (const pool of pools) await pool.close();
      await db.close();
    });

    it("a write answers its GTID as the token; on a late node a read without it misses the write, one with it waits and then fails, and reads it once the node catches up", async () => {
      const first = nodePool(0);
      const late = nodePool(1);
      const release = await holdBack(1);
      let released = false;
      try {
        const writer = new Context(first);
        let token: string | undefined;
        let id: number;
        try {
          id = (await insertCompany(writer, "Written on node 1")).id;
          token = await writer.consistencyToken();
        } finally {
          await writer.dispose();
        }
        assert.match(token ?? "", /^\d+-\d+-\d+$/, "the token is a GTID");
        const blind = new Context(late);
        try {
          assert.equal(await blind.tryGet(Company, id), null, "the late node has not applied the write");
        } finally {
          await blind.dispose();
        }
        const bounded = new Context(late);
        try {
          assert.equal(bounded.consistentWith(token as string), true);
          await assert.rejects(
            bounded.tryGet(Company, id),
            TransientDatabaseError,
            "the wait is bounded: a late node fails the read (503)",
          );
        } finally {
          await bounded.dispose();
        }
        const patient = new Context(nodePool(1, 60_000));
        try {
          assert.equal(patient.consistentWith(token as string), true);
          const reading = patient.tryGet(Company, id);
          await new Promise((resolve) => setTimeout(resolve, 200));
          released = true;
          await release();
          assert.equal((await reading)?.name, "Written on node 1", "once the node applies it, the read with the token sees the write");
        } finally {
          await patient.dispose();
        }
      } finally {
        if (!released) await release();
      }
      assert.equal(new Context(late).consistentWith("16/B374D848"), false, "a PostgreSQL token is not one of Galera's");
    });
  });
}
