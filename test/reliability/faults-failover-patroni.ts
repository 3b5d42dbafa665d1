// Failover on a Patroni cluster: the demo (WORKERS=2, every node in its DATABASE_URL, reads on the replicas)
// serves a steady read and write load while the primary's postmaster is killed with SIGKILL. Patroni promotes a
// replica; Tenon finds the new primary by itself, without a proxy and without a restart. Every request is answered
// 2xx, 409 or 503; writes resume on the new primary; and a reconciliation of the acknowledged writes with the new
// primary's rows finds nothing lost with synchronous_mode on, and measures what an asynchronous failover loses.
// Called by test/orm/patroni.test.ts on the cluster it starts.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { startDemo } from "../demo/demo-process.js";
import { parseExposition, samplesOf } from "../http/operations/exposition.js";
import type { PatroniCluster } from "../support/patroni-cluster.js";
import { loadRowsOf, reconcile } from "../support/reconcile.js";
import { demoToken, runWriteLoad } from "../support/write-load.js";

const metricsToken = "patroni-failover-metrics-0123";
/** Load before the kill. */
const beforeKillMs = 2500;
/** Load after writes resumed, to show that they go on. */
const afterResumeMs = 2500;
/** The "late" bound for writes to resume after the kill (docs/scaling.md): not a speed claim, a bound on "never". */
const resumeBoundMs = 15_000;

/** One request of the probes beside the load: when it was sent and answered, and its status (0: no answer). */
interface Probe {
  readonly sent: number;
  readonly answered: number;
  readonly status: number;
}

async function probe(url: string, init: RequestInit, started: number): Promise<Probe> {
  const sent = Date.now() - started;
  let status = 0;
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
    await response.text();
    status = response.status;
  } catch {
    status = 0;
  }
  return { sent, answered: Date.now() - started, status };
}

/** Defines the failover tests (synchronous_mode on, then off) on a running cluster. */
export function definePatroniFailover(cluster: () => PatroniCluster): void {
  describe("failover on a Patroni cluster: the primary's postmaster killed with SIGKILL under load, WORKERS=2", () => {
    for (const synchronous of [true, false]) {
      const title = synchronous
        ? "with synchronous_mode on: every request is answered 2xx, 409 or 503, writes resume on the new primary without a restart, and no acknowledged write is lost nor a refused one present"
        : "with synchronous_mode off: every request is answered 2xx, 409 or 503, writes resume on the new primary, and what the asynchronous failover lost is measured";
      test(title, async () => {
        await cluster().configure({
          synchronous_mode: synchronous,
          synchronous_node_count: 1,
          postgresql: { parameters: { synchronous_commit: "on" } },
        });
        await cluster().waitHealthy();
        const scratch = await cluster().scratch("tenon_failover", { replicaReads: "true" });
        const directory = mkdtempSync(join(tmpdir(), "tenon-failover-"));
        const demo = await startDemo({
          DATABASE_URL: scratch.url,
          DEMO_RESET: "1",
          WORKERS: "2",
          LOG_FILE: join(directory, "http.log"),
          METRICS_TOKEN: metricsToken,
        });
        try {
          const baseUrl = `http://127.0.0.1:${demo.port}/api`;
          const token = await demoToken(baseUrl);
          const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
          const [seeded] = await scratch.rows("SELECT ID AS id FROM Companies ORDER BY ID LIMIT 1");
          const started = Date.now();
          const reads: Probe[] = [];
          const probeWrites: Probe[] = [];
          let killedAt = 0;
          let killed = -1;
          let leaderAt = 0;
          let resumedAt = 0;
          let loading = true;
          const readers = Array.from({ length: 2 }, async () => {
            while (loading) reads.push(await probe(`${baseUrl}/companies/${seeded.id}`, { headers }, started));
          });
          // One client writing in sequence beside the load: the first write sent after the kill and acknowledged
          // is when writes resumed.
          const writer = (async () => {
            let n = 0;
            while (loading) {
              const answer = await probe(
                `${baseUrl}/companies`,
                { method: "POST", headers, body: JSON.stringify({ name: `probe-${n++}` }) },
                started,
              );
              probeWrites.push(answer);
              if (killedAt > 0 && resumedAt === 0 && answer.sent > killedAt && answer.status === 200) resumedAt = answer.answered;
            }
          })();
          const fault = (async () => {
            await new Promise((resolve) => setTimeout(resolve, beforeKillMs));
            killedAt = Date.now() - started;
            killed = await cluster().killLeaderPostmaster();
            const deadline = Date.now() + 60_000;
            while (Date.now() < deadline) {
              const leader = await cluster().leader();
              if (leader >= 0 && leader !== killed) {
                leaderAt = Date.now() - started;
                break;
              }
              await new Promise((resolve) => setTimeout(resolve, 100));
            }
            while (resumedAt === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
            await new Promise((resolve) => setTimeout(resolve, afterResumeMs));
          })();
          const log = await runWriteLoad({ baseUrl, token, durationMs: beforeKillMs, clients: 4, extendUntil: fault });
          await fault;
          loading = false;
          await Promise.all([...readers, writer]);

          const result = reconcile(log, loadRowsOf(await scratch.rows(log.rowsSql)));
          const statuses = new Map<number, number>();
          for (const write of log.writes) statuses.set(write.status, (statuses.get(write.status) ?? 0) + 1);
          const count = (probes: readonly Probe[]): string => {
            const byStatus: Record<number, number> = {};
            for (const each of probes) byStatus[each.status] = (byStatus[each.status] ?? 0) + 1;
            return JSON.stringify(byStatus);
          };
          console.log(
            `Patroni failover (synchronous_mode ${synchronous ? "on" : "off"}): node${killed + 1}'s postmaster killed at ${killedAt} ms, ` +
              `a new leader at ${leaderAt} ms, writes resumed at ${resumedAt} ms (${resumedAt - killedAt} ms after the kill); ` +
              `${log.writes.length} load writes ${JSON.stringify(Object.fromEntries(statuses))}, probe writes ${count(probeWrites)}, reads ${count(reads)}; ` +
              `${result.acknowledged} acknowledged, ${result.unavailable} answered 503 (${result.unavailableApplied} applied), ${result.inDoubt} in doubt; ` +
              `lost ${result.lost.length}, mismatched ${result.mismatched.length}, phantom ${result.phantom.length}`,
          );
          const unclean = [
            ...log.writes.map((write) => ({ what: `${write.operation} ${write.record} at ${write.at} ms`, status: write.status })),
            ...probeWrites.map((write) => ({ what: `probe write at ${write.sent} ms`, status: write.status })),
            ...reads.map((read) => ({ what: `read at ${read.sent} ms`, status: read.status })),
          ].filter(({ status }) => !((status >= 200 && status < 300) || status === 409 || status === 503));
          // What the demo printed (its workers' exits and restarts, errors logged to the console) tells why a request went unanswered.
          assert.deepEqual(
            unclean,
            [],
            `every request is answered 2xx, 409 or 503, never 500 nor left without an answer; the demo's output:\n${demo.output().slice(-4000)}`,
          );
          assert.ok(leaderAt > 0, "Patroni promoted a replica");
          assert.ok(resumedAt > 0, "writes resumed without restarting the demo");
          assert.ok(
            resumedAt - killedAt < resumeBoundMs,
            `writes resumed ${resumedAt - killedAt} ms after the kill (late beyond ${resumeBoundMs} ms)`,
          );
          assert.ok(
            log.writes.some((write) => write.outcome === "acknowledged" && write.at > resumedAt),
            "the load's writes are acknowledged again after the failover",
          );
          const exposition = parseExposition(
            await (
              await fetch(`http://127.0.0.1:${metricsPortOf(demo.output())}/metrics`, {
                headers: { Authorization: `Bearer ${metricsToken}` },
              })
            ).text(),
          );
          const failovers = samplesOf(exposition, "tenon_db_failovers_total", { database: "demo" }).reduce(
            (sum, sample) => sum + sample.value,
            0,
          );
          assert.ok(failovers >= 1, `the demo's workers noticed the failover (tenon_db_failovers_total ${failovers})`);
          assert.deepEqual(result.phantom, [], "no refused write is present");
          if (synchronous) {
            assert.deepEqual(
              { lost: result.lost, mismatched: result.mismatched },
              { lost: [], mismatched: [] },
              "no acknowledged write is lost",
            );
          }
        } finally {
          await demo.stop();
          await scratch.close();
          rmSync(directory, { recursive: true, force: true });
        }
        // The killed node rejoins as a replica (pg_rewind), so that what runs after finds three nodes.
        await cluster().waitHealthy();
      });
    }
  });
}

/** The port of the metrics the demo's primary serves for all its workers, as it printed it. */
function metricsPortOf(output: string): number {
  const match = /Metrics on http:\/\/127\.0\.0\.1:(\d+)\/metrics/.exec(output);
  assert.ok(match !== null, output);
  return Number(match[1]);
}
