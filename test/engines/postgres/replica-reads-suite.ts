// Read replicas of a Patroni cluster as the ORM sees them: Tenon finds the primary among the hosts, spreads the
// reads of sessions that have not written over the replicas, keeps a replica further behind than the lag bound
// out of rotation until it catches up, and a consistency token makes a read wait for a replica that has replayed
// the write, or go to the primary. Called by test/orm/patroni.test.ts on the cluster it starts.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Column, Context, PrimaryKey, Table, Type } from "tenon";
import { PostgresDatabase, type PostgresOptions } from "tenon/postgres";
import type { PatroniCluster } from "../../support/patroni-cluster.js";
import type { ScratchDatabase } from "../../support/scratch-database.js";

@Table("Notes")
class Note {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Body", Type.string) body = "";
}

/** Resolves once `check` holds, polling; fails with `what` after `ms` (a bound that tells "never" from "late"). */
async function eventually(what: string, check: () => Promise<boolean> | boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Where one read of `database`'s routing runs: a replica (and its port), or the primary (port -1: the session's own connection). */
async function readTarget(database: PostgresDatabase, after?: string): Promise<{ target: string; port: number }> {
  const connection = await (database.readRouting as NonNullable<PostgresDatabase["readRouting"]>).acquireRead(after);
  if (connection === undefined) return { target: "primary", port: -1 };
  try {
    const rows = await connection.query("SELECT inet_server_port()", []);
    return { target: "replica", port: Number(rows[0][0]) };
  } finally {
    connection.release();
  }
}

/** Defines the read-replica tests on a running cluster (with `synchronous_commit` `on`: replay may be paused). */
export function defineReplicaReads(cluster: () => PatroniCluster): void {
  describe("read replicas of a Patroni cluster, through every node's address", () => {
    let scratch: ScratchDatabase;
    let leader: number;
    const databases: PostgresDatabase[] = [];
    /** A database on every node, once both replicas are in its rotation (they serve the test's database once they have replayed its creation). */
    const open = async (options: Partial<PostgresOptions> = {}): Promise<PostgresDatabase> => {
      const database = new PostgresDatabase({ connectionString: scratch.url, replicaReads: true, checkInterval: 200, ...options });
      databases.push(database);
      await eventually("both replicas are in rotation", async () => {
        await readTarget(database);
        return database.poolFigures().replicas?.servers.filter((server) => server.inRotation).length === 2;
      });
      return database;
    };
    const portOf = (index: number): number => cluster().state.nodes[index].port;
    const replicas = (): number[] => [0, 1, 2].filter((index) => index !== leader);
    const pauseReplay = async (index: number): Promise<void> => {
      await cluster().query(index, "SELECT pg_wal_replay_pause()");
      await eventually("replay paused", async () => {
        const [row] = await cluster().query(index, "SELECT pg_get_wal_replay_pause_state() AS state");
        return row.state === "paused";
      });
    };
    const resumeReplay = (index: number) => cluster().query(index, "SELECT pg_wal_replay_resume()");

    before(async () => {
      // Commits wait for one standby's flush, not for replay: replay can then be paused without stopping writes.
      // Patroni's maintenance mode: otherwise Patroni resumes a paused replay within a second (on PostgreSQL 14 and
      // later it takes a pause for one that a parameter change caused).
      await cluster().configure({ pause: true, synchronous_node_count: 1, postgresql: { parameters: { synchronous_commit: "on" } } });
      leader = await cluster().waitHealthy();
      scratch = await cluster().scratch("tenon_replicas");
      await scratch.exec("CREATE TABLE Notes (ID INTEGER PRIMARY KEY, Body TEXT NOT NULL)");
    });
    after(async () => {
      for (const index of replicas()) await resumeReplay(index).catch(() => undefined);
      await cluster().configure({ pause: false });
      for (const database of databases) await database.close();
      await scratch?.close();
    });

    test("writes go to the primary it finds, and the reads of sessions that have not written go to both replicas in turn", async () => {
      const database = await open();
      const writer = new Context(database);
      try {
        const note = new Note();
        note.id = 1;
        note.body = "first";
        await writer.insert(note);
        assert.deepEqual(await writer.query("SELECT inet_server_port()"), [[portOf(leader)]], "the session that wrote runs on the primary");
        assert.equal(await writer.selectCount(Note), 1, "a session that wrote reads its write");
      } finally {
        await writer.dispose();
      }
      const seen = new Set<number>();
      for (let read = 0; read < 8; read++) {
        const where = await readTarget(database);
        assert.equal(where.target, "replica");
        seen.add(where.port);
      }
      assert.deepEqual([...seen].sort(), replicas().map(portOf).sort(), "both replicas serve reads, the primary none");
      const figures = database.poolFigures().replicas;
      assert.equal(figures?.servers.find((server) => server.role === "primary")?.address, `127.0.0.1:${portOf(leader)}`);
      assert.equal(figures?.reads.primary, 1, "the read of the session that wrote counts as a primary read");
    });

    test("with replay paused, a session given the write's token reads it from the primary while one without reads the replica's older state", async () => {
      const database = await open({ consistencyWait: 100 });
      for (const index of replicas()) await pauseReplay(index);
      try {
        const writer = new Context(database);
        let token: string | undefined;
        try {
          const note = new Note();
          note.id = 2;
          note.body = "after the pause";
          await writer.insert(note);
          token = await writer.consistencyToken();
        } finally {
          await writer.dispose();
        }
        assert.match(token ?? "", /^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/, "a write answers its WAL position as its token");
        const consistent = new Context(database);
        const stale = new Context(database);
        try {
          assert.equal(consistent.consistentWith(token as string), true);
          assert.equal((await consistent.get(Note, 2)).body, "after the pause", "the token's read sees the write");
          assert.equal(await stale.tryGet(Note, 2), null, "a read without the token is served by a replica that has not replayed it");
        } finally {
          await consistent.dispose();
          await stale.dispose();
        }
        const waits = database.poolFigures().replicas?.consistencyWaits;
        assert.deepEqual(waits, { replica: 0, waited: 0, primary: 1 }, "the token's read waited, then went to the primary");
        assert.equal(new Context(database).consistentWith("not a token"), false, "text that is no WAL position is refused");
      } finally {
        for (const index of replicas()) await resumeReplay(index);
      }
      // Once replayed, a token is served by a replica (at once, or after a short wait).
      const later = new Context(database);
      try {
        const note = new Note();
        note.id = 3;
        note.body = "replayed";
        await later.insert(note);
        const token = (await later.consistencyToken()) as string;
        await eventually("a replica replays the write", async () => (await readTarget(database, token)).target === "replica");
      } finally {
        await later.dispose();
      }
      const waits = database.poolFigures().replicas?.consistencyWaits;
      assert.ok((waits?.replica ?? 0) + (waits?.waited ?? 0) >= 1, JSON.stringify(waits));
    });

    test("a replica further behind than maxReplicaLag leaves the rotation, its lag is reported, and it comes back once it catches up", async () => {
      const database = await open({ maxReplicaLag: 1000 });
      const [lagging, steady] = replicas();
      const laggingAddress = `127.0.0.1:${portOf(lagging)}`;
      const serverOf = () => database.poolFigures().replicas?.servers.find((server) => server.address === laggingAddress);
      await readTarget(database);
      await pauseReplay(lagging);
      const writer = new Context(database);
      let id = 100;
      const writing = { on: true };
      const writes = (async () => {
        while (writing.on) {
          const note = new Note();
          note.id = id++;
          note.body = "load";
          await writer.insert(note);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      try {
        await eventually("the lagging replica leaves the rotation", () => serverOf()?.inRotation === false);
        assert.ok((serverOf()?.lagSeconds ?? 0) > 1, `lag reported: ${JSON.stringify(serverOf())}`);
        for (let read = 0; read < 10; read++) {
          const where = await readTarget(database);
          assert.notEqual(where.port, portOf(lagging), "no read goes to the replica out of rotation");
          if (where.target === "replica") assert.equal(where.port, portOf(steady));
        }
      } finally {
        await resumeReplay(lagging);
        writing.on = false;
        await writes;
        await writer.dispose();
      }
      await eventually("the replica is back in rotation once it has caught up", () => serverOf()?.inRotation === true);
    });
  });
}
