// What a Galera cluster changes for Tenon's MariaDB engine, tested on a real three-node cluster: which
// sequences are safe (and the typed refusal of the others), reads after writes through another node, and
// optimistic locking when two clients write the same row through two different nodes.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ConcurrentUpdateError, Context, type Database, TransientDatabaseError, UnsafeSequenceError } from "tenon";
import { MariaDbDatabase } from "tenon/mariadb";
import { Company, insertCompany } from "../../orm/fixtures.js";
import { galeraHarness, type MariaDbTestDatabase, openMariaDb } from "../../orm/harness-mariadb.js";
import { createSchema } from "../../orm/schema.js";
import type { GaleraCluster } from "../../support/galera-cluster.js";

/** The errno of the MariaDB error behind a DatabaseError, if any. */
function errnoOf(error: unknown): number | undefined {
  const cause = (error as { cause?: { errno?: unknown } } | null)?.cause;
  return typeof cause?.errno === "number" ? cause.errno : undefined;
}

/** Galera's certification failure (1213), as the engine classifies it: a transient conflict. */
function isCertificationFailure(error: unknown): boolean {
  return error instanceof TransientDatabaseError && error.kind === "conflict" && errnoOf(error) === 1213;
}

/** The loser of a write conflict between nodes: a version conflict, or a certification failure. */
function isConflictLoss(error: unknown): boolean {
  return error instanceof ConcurrentUpdateError || isCertificationFailure(error);
}

/** Defines the Galera-specific engine tests on a running cluster. */
export function galeraEngineSuite(cluster: () => GaleraCluster): void {
  describe("MariaDB Galera: sequences, reads after writes and write conflicts across nodes", () => {
    let db: MariaDbTestDatabase;
    const pools: Database[] = [];
    /** A pool whose connections all go to one node (no HAProxy in between). */
    const nodePool = (index: number, options: { wsrepSyncWait?: number } = {}): MariaDbDatabase => {
      const pool = new MariaDbDatabase({ connectionString: cluster().nodeUrl(index, db.name), poolSize: 4, ...options });
      pools.push(pool);
      return pool;
    };

    before(async () => {
      const harness = galeraHarness(cluster().url());
      db = await openMariaDb({ url: cluster().url(), directSetup: ["SET SESSION wsrep_sync_wait = 1"] });
      await createSchema(harness, db);
    });
    after(async () => {
      for (const pool of pools) await pool.close();
      await db.close();
    });

    it("the server itself refuses a plain CREATE SEQUENCE (error 1235), so the cached default can never be created", async () => {
      await assert.rejects(db.exec("CREATE SEQUENCE PlainSeq"), (error: unknown) => (error as { errno?: number }).errno === 1235);
    });

    it("an insert drawing from a NOCACHE sequence with increment 1 is refused with UnsafeSequenceError and writes nothing", async () => {
      await db.exec("DROP SEQUENCE CompaniesID");
      await db.exec("CREATE SEQUENCE CompaniesID NOCACHE");
      try {
        await using context = new Context(db.database);
        await assert.rejects(insertCompany(context, "Duplicate Risk"), (error: unknown) => {
          assert.ok(error instanceof UnsafeSequenceError, String(error));
          assert.equal(error.sequence, "`CompaniesID`");
          assert.match(error.message, /INCREMENT BY 0/);
          return true;
        });
        assert.equal(Number((await db.rows("SELECT COUNT(*) AS n FROM Companies WHERE Name = 'Duplicate Risk'"))[0].n), 0);
      } finally {
        await db.exec("DROP SEQUENCE CompaniesID");
        await db.exec("CREATE SEQUENCE CompaniesID INCREMENT BY 0");
      }
      await using again = new Context(db.database);
      const company = await insertCompany(again, "Fixed Schema");
      assert.ok(company.id > 0, "once the sequence is recreated as INCREMENT BY 0 the same pool draws from it");
    });

    it("an INCREMENT BY 0 sequence hands out distinct keys to concurrent inserts through all three nodes", async () => {
      const perNode = 25;
      const inserts = [0, 1, 2].flatMap((node) => {
        const pool = nodePool(node);
        return Array.from({ length: perNode }, async (_, i) => {
          await using context = new Context(pool);
          return (await insertCompany(context, `Concurrent ${node}-${i}`)).id;
        });
      });
      const ids = await Promise.all(inserts);
      assert.equal(new Set(ids).size, 3 * perNode, "no key was handed out twice");
      const [row] = await db.rows("SELECT COUNT(*) AS n, COUNT(DISTINCT ID) AS d FROM Companies WHERE Name LIKE 'Concurrent %'");
      assert.equal(Number(row.n), 3 * perNode);
      assert.equal(Number(row.d), 3 * perNode);
    });

    it("a read through one node right after a write through another sees the write (the pool sets wsrep_sync_wait)", async () => {
      const writer = nodePool(0);
      const reader = nodePool(1);
      for (let i = 0; i < 60; i++) {
        await using write = new Context(writer);
        const company = await insertCompany(write, `Read Your Write ${i}`);
        await using read = new Context(reader);
        assert.equal((await read.tryGet(Company, company.id))?.name, `Read Your Write ${i}`, `iteration ${i}`);
        company.name = `Updated ${i}`;
        await write.update(company);
        await using reread = new Context(reader);
        assert.equal((await reread.get(Company, company.id)).versionId, 1, `iteration ${i}: the update is seen too`);
      }
    });

    it("two clients updating the same row through two different nodes: exactly one wins, the other learns it lost", async () => {
      const first = nodePool(0);
      const second = nodePool(2);
      let certificationLosses = 0;
      for (let round = 0; round < 20; round++) {
        await using setup = new Context(first);
        const { id } = await insertCompany(setup, `Contested ${round}`);
        await using a = new Context(first);
        await using b = new Context(second);
        const [ca, cb] = await Promise.all([a.get(Company, id), b.get(Company, id)]);
        ca.name = `Won by A ${round}`;
        cb.name = `Won by B ${round}`;
        const results = await Promise.allSettled([a.update(ca), b.update(cb)]);
        const won = results.filter((result) => result.status === "fulfilled");
        assert.equal(
          won.length,
          1,
          `round ${round}: ${results.map((r) => (r.status === "rejected" ? String(r.reason) : "ok")).join(", ")}`,
        );
        const lost = results.find((result) => result.status === "rejected") as PromiseRejectedResult;
        assert.ok(isConflictLoss(lost.reason), `round ${round}: the loser got ${String(lost.reason)}`);
        if (isCertificationFailure(lost.reason)) certificationLosses++;
        const winner = results[0].status === "fulfilled" ? `Won by A ${round}` : `Won by B ${round}`;
        const [row] = await db.rows(`SELECT Name AS name, VersionID AS v FROM Companies WHERE ID = ${id}`);
        assert.deepEqual({ name: row.name, v: Number(row.v) }, { name: winner, v: 1 }, `round ${round}: the acknowledged write is stored`);
      }
      console.log(`# write conflicts across nodes: ${certificationLosses} of 20 lost by certification (1213), the rest by version`);
    });

    it("two transactions holding updates of the same row on two nodes: the first commit wins, the other fails certification (1213)", async () => {
      const first = nodePool(0);
      const second = nodePool(1);
      await using setup = new Context(first);
      const { id } = await insertCompany(setup, "Certified");
      await using a = new Context(first);
      await using b = new Context(second);
      const [ca, cb] = await Promise.all([a.get(Company, id), b.get(Company, id)]);
      ca.name = "Committed by A";
      cb.name = "Committed by B";
      // Both updates run (each on its own node, where neither sees the other) before either commits.
      let arrived = 0;
      let release: () => void = () => {};
      const bothUpdated = new Promise<void>((resolve) => (release = resolve));
      const barrier = async (): Promise<void> => {
        if (++arrived === 2) release();
        await bothUpdated;
      };
      const results = await Promise.allSettled([
        a.transaction(async () => {
          await a.update(ca);
          await barrier();
        }),
        b.transaction(async () => {
          await b.update(cb);
          await barrier();
          await new Promise((resolve) => setTimeout(resolve, 50));
        }),
      ]);
      const won = results.filter((result) => result.status === "fulfilled");
      assert.equal(won.length, 1, results.map((r) => (r.status === "rejected" ? String(r.reason) : "ok")).join(", "));
      const lost = results.find((result) => result.status === "rejected") as PromiseRejectedResult;
      assert.ok(isCertificationFailure(lost.reason), `the loser got ${String(lost.reason)}`);
      const winner = results[0].status === "fulfilled" ? "Committed by A" : "Committed by B";
      const [row] = await db.rows(`SELECT Name AS name, VersionID AS v FROM Companies WHERE ID = ${id}`);
      assert.deepEqual({ name: row.name, v: Number(row.v) }, { name: winner, v: 1 }, "the acknowledged commit is stored, the other is not");
    });
  });
}
