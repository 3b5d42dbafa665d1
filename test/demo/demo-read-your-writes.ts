// Read-your-writes across requests on a Patroni cluster: the demo reads from the replicas, and replay is paused on
// both of them, so that a replica serves only what it had before the pause. Every client that sends back the
// X-Consistency-Token of its own write reads that write; most other reads of the same rows are served by the
// replicas (which cannot have them: a 404 tells it). Then replay resumes and a token is served by a replica.
// Called by test/orm/patroni.test.ts on the cluster it starts.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ask, type Answer } from "../http/http-test-client.js";
import { parseExposition, sampleValue } from "../http/operations/exposition.js";
import type { PatroniCluster } from "../support/patroni-cluster.js";
import type { ScratchDatabase } from "../support/scratch-database.js";
import { type DemoProcess, startDemo } from "./demo-process.js";

const metricsToken = "patroni-metrics-token-0123";
const writers = 4;
const rounds = 10;
const readers = 4;

/** Resolves once `check` holds, polling; fails after `ms` (a bound that tells "never" from "late"). */
async function eventually(what: string, check: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Defines the read-your-writes tests of the demo on a running cluster. */
export function defineReadYourWrites(cluster: () => PatroniCluster): void {
  describe("read your writes through the demo on a Patroni cluster, replay paused on both replicas", () => {
    let scratch: ScratchDatabase;
    let demo: DemoProcess;
    let directory: string;
    let token: string;
    let replicas: number[] = [];
    const call = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<Answer> =>
      ask(demo.port, `/api${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const metrics = async () => {
      const match = /Metrics on http:\/\/127\.0\.0\.1:(\d+)\/metrics/.exec(demo.output());
      assert.ok(match !== null, demo.output());
      const response = await fetch(`http://127.0.0.1:${match[1]}/metrics`, { headers: { Authorization: `Bearer ${metricsToken}` } });
      return parseExposition(await response.text());
    };
    const waits = async (outcome: string) =>
      sampleValue(await metrics(), "tenon_db_consistency_waits_total", { database: "demo", outcome });
    const setReplay = (action: "pause" | "resume") =>
      Promise.all(replicas.map((index) => cluster().query(index, `SELECT pg_wal_replay_${action}()`)));

    before(async () => {
      // Patroni's maintenance mode, so that it does not resume the replay the test pauses (see replica-reads-suite.ts).
      await cluster().configure({ pause: true, synchronous_node_count: 1, postgresql: { parameters: { synchronous_commit: "on" } } });
      const leader = await cluster().waitHealthy();
      replicas = [0, 1, 2].filter((index) => index !== leader);
      // A lag bound far above the test's length: the paused replicas stay in rotation (their lag is measured all the same).
      scratch = await cluster().scratch("tenon_ryw", { replicaReads: "true", maxReplicaLag: "600000", consistencyWait: "100" });
      directory = mkdtempSync(join(tmpdir(), "tenon-ryw-"));
      demo = await startDemo({
        DATABASE_URL: scratch.url,
        DEMO_RESET: "1",
        LOG_FILE: join(directory, "http.log"),
        METRICS_TOKEN: metricsToken,
      });
      const logon = await ask(demo.port, "/api/logon", {
        method: "POST",
        body: JSON.stringify({ username: "editor", password: "editor" }),
      });
      token = (logon.json as { token: string }).token;
    });
    after(async () => {
      await setReplay("resume").catch(() => undefined);
      await cluster().configure({ pause: false });
      await demo?.stop();
      await scratch?.close();
      if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
    });

    test("every write answers X-Consistency-Token, and a malformed one sent back is a 400 that names the header", async () => {
      const written = await call("POST", "/companies", {}, { name: "token check" });
      assert.equal(written.status, 200, written.text);
      assert.match(String(written.headers["x-consistency-token"]), /^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/);
      const id = (written.json as { id: number }).id;
      for (const bad of ["not-a-token", "", "1/2/3", "G/0", "123456789/0"]) {
        const answer = await call("GET", `/companies/${id}`, { "X-Consistency-Token": bad });
        assert.equal(answer.status, 400, `${JSON.stringify(bad)}: ${answer.text}`);
        assert.deepEqual(answer.json, {
          status: 400,
          message: "The X-Consistency-Token header is not a consistency token of this server: send back one it answered.",
        });
      }
      const good = await call("GET", `/companies/${id}`, { "X-Consistency-Token": String(written.headers["x-consistency-token"]) });
      assert.equal(good.status, 200, good.text);
      assert.equal(good.headers["x-consistency-token"], undefined, "a read answers no token");
    });

    test("every read that sends its own write's token sees the write, while at least 80% of the other reads are served by replicas", async () => {
      // Both replicas serve the demo's database once they have replayed its creation and seed rows.
      await eventually("both replicas in the demo's rotation", async () => {
        await call("GET", "/companies/find/1");
        const exposition = await metrics();
        return replicas.every(
          (index) =>
            sampleValue(exposition, "tenon_db_replica_in_rotation", {
              database: "demo",
              server: `127.0.0.1:${cluster().state.nodes[index].port}`,
            }) === 1,
        );
      });
      await setReplay("pause");
      await eventually("replay paused on both replicas", async () => {
        const states = await Promise.all(
          replicas.map((index) => cluster().query(index, "SELECT pg_get_wal_replay_pause_state() AS state")),
        );
        return states.every(([row]) => row.state === "paused");
      });
      const primaryWaitsBefore = await waits("primary");
      const written: { id: number; name: string }[] = [];
      const tokenReads: { id: number; status: number; name: unknown }[] = [];
      const otherReads: number[] = [];
      let writing = true;
      const writer = async (client: number): Promise<void> => {
        for (let round = 0; round < rounds; round++) {
          const name = `ryw-${client}-${round}`;
          const answer = await call("POST", "/companies", {}, { name });
          assert.equal(answer.status, 200, answer.text);
          const id = (answer.json as { id: number }).id;
          const consistency = String(answer.headers["x-consistency-token"]);
          written.push({ id, name });
          const read = await call("GET", `/companies/${id}`, { "X-Consistency-Token": consistency });
          tokenReads.push({ id, status: read.status, name: (read.json as { name?: unknown } | undefined)?.name });
        }
      };
      const reader = async (): Promise<void> => {
        while (writing) {
          if (written.length === 0) {
            await new Promise((resolve) => setTimeout(resolve, 10));
            continue;
          }
          const { id } = written[Math.floor(Math.random() * written.length)];
          otherReads.push((await call("GET", `/companies/${id}`)).status);
        }
      };
      const reading = Array.from({ length: readers }, () => reader());
      try {
        await Promise.all(Array.from({ length: writers }, (_, client) => writer(client)));
      } finally {
        writing = false;
        await Promise.all(reading);
      }
      const missed = tokenReads.filter((read) => read.status !== 200 || read.name !== written.find((w) => w.id === read.id)?.name);
      assert.deepEqual(missed, [], `all ${tokenReads.length} reads with their own write's token see it`);
      assert.equal(tokenReads.length, writers * rounds);
      assert.ok(
        otherReads.every((status) => status === 200 || status === 404),
        JSON.stringify(otherReads),
      );
      const byReplicas = otherReads.filter((status) => status === 404).length;
      console.log(
        `read your writes, replay paused: ${tokenReads.length} reads with their token all saw their write; ${byReplicas} of ${otherReads.length} other reads were served by replicas (404: written after the pause)`,
      );
      assert.ok(otherReads.length >= 20, `enough other reads ran (${otherReads.length})`);
      assert.ok(byReplicas / otherReads.length >= 0.8, `${byReplicas} of ${otherReads.length} other reads served by replicas`);
      assert.ok((await waits("primary")) - primaryWaitsBefore >= tokenReads.length, "each token's read waited, then went to the primary");
      const exposition = await metrics();
      assert.ok(sampleValue(exposition, "tenon_db_reads_total", { database: "demo", target: "replica" }) > 0);
      for (const index of replicas) {
        const address = `127.0.0.1:${cluster().state.nodes[index].port}`;
        assert.ok(sampleValue(exposition, "tenon_db_replica_lag_seconds", { database: "demo", server: address }) >= 0);
        assert.equal(sampleValue(exposition, "tenon_db_replica_in_rotation", { database: "demo", server: address }), 1);
      }
    });

    test("once replay resumes, a write's token is served by a replica that has replayed it", async () => {
      await setReplay("resume");
      const before = (await waits("replica")) + (await waits("waited"));
      await eventually("a token's read is served by a replica", async () => {
        const answer = await call("POST", "/companies", {}, { name: "after resume" });
        const read = await call("GET", `/companies/${(answer.json as { id: number }).id}`, {
          "X-Consistency-Token": String(answer.headers["x-consistency-token"]),
        });
        assert.equal(read.status, 200, read.text);
        return (await waits("replica")) + (await waits("waited")) > before;
      });
    });
  });
}
