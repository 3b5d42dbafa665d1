// Faults: the database server restarted under load, on a throwaway server of the test's own (the shared
// servers are never restarted); also one node of a Galera cluster, and PgBouncer in front of PostgreSQL. While
// it is away the demo answers 2xx, 409 or 503 with Retry-After, never 500 nor nothing; it recovers by itself
// when the server is back; and the rows match the log of acknowledged writes afterwards.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { startDemo } from "../demo/demo-process.js";
import { reportUnreachable } from "../orm/engine-availability.js";
import { type LoadRow, loadRowsOf, reconcile } from "../support/reconcile.js";
import type { ScratchDatabase, ScratchOptions } from "../support/scratch-database.js";
import type { ThrowawayServer } from "../support/throwaway-server.js";
import { demoToken, type LoggedWrite, runWriteLoad } from "../support/write-load.js";

/** A throwaway server the suite may stop and start, with a database for the demo on it. */
export interface RestartableDatabase {
  readonly name: string;
  /** The demo's DATABASE_URL. */
  readonly url: string;
  /** Brings the fault on: stops the server (or the node, or the pooler). */
  stop(): Promise<void>;
  /** Ends the fault: starts it again on the same port; resolves once it serves. */
  start(): Promise<void>;
  /** This run's rows (`log.rowsSql`), read directly (through a server that stayed up, tried again on a transient error). */
  rows(sql: string): Promise<LoadRow[]>;
  close(): Promise<void>;
}

/** What one engine's restart test stops, and what it may expect while that is away. */
export interface RestartFaultOptions {
  /** What is stopped and started, for the test's name (default "the database server"). */
  readonly what?: string;
  /**
   * The service stays up through the fault (a cluster with one node of three away): besides the 503s of the
   * moment it goes, writes are acknowledged while it is away.
   */
  readonly servedWhileAway?: boolean;
}

const long = process.env.TENON_LONG === "1";
/** Load before, during and after the outage. */
const loadMs = long ? 30_000 : 4_000;
const outageAtMs = long ? 10_000 : 2_000;
const outageMs = long ? 5_000 : 1_500;
const afterMs = long ? 10_000 : 2_000;

/** A GET that runs while the server is away: what does it answer? */
async function probe(baseUrl: string, token: string): Promise<{ status: number; retryAfter: string | null; body: string }> {
  const response = await fetch(`${baseUrl}/companies`, {
    headers: { Authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body: await response.text() };
}

/** Defines the restart test of one engine; `open` starts the throwaway server and creates the demo's database. */
export function defineDatabaseRestartFaults(
  name: string,
  open: () => Promise<RestartableDatabase>,
  options: RestartFaultOptions = {},
): void {
  const what = options.what ?? "the database server";
  const served = options.servedWhileAway === true;
  describe(`faults on ${name}: ${what} restarted under load`, () => {
    const title = served
      ? "every write is answered 2xx, 409 or 503, writes are acknowledged while it is away, and no acknowledged write is lost nor a refused one present"
      : "while it is away the answers are 2xx, 409 or 503 with Retry-After, it recovers by itself, and no acknowledged write is lost nor a refused one present";
    test(title, async () => {
      const database = await open();
      const directory = mkdtempSync(join(tmpdir(), "tenon-faults-"));
      const demo = await startDemo({ DATABASE_URL: database.url, DEMO_RESET: "1", LOG_FILE: join(directory, "http.log") });
      try {
        const baseUrl = `http://127.0.0.1:${demo.port}/api`;
        const token = await demoToken(baseUrl);
        let outage: { from: number; down: number; up: number; to: number } | undefined;
        const probes: { status: number; retryAfter: string | null; body: string }[] = [];
        const started = Date.now();
        const fault = (async () => {
          await new Promise((resolve) => setTimeout(resolve, outageAtMs));
          const from = Date.now() - started;
          await database.stop();
          const down = Date.now() - started;
          const probing = (async () => {
            const until = Date.now() + outageMs;
            while (Date.now() < until) probes.push(await probe(baseUrl, token));
          })();
          await new Promise((resolve) => setTimeout(resolve, outageMs));
          await probing;
          const up = Date.now() - started;
          await database.start();
          outage = { from, down, up, to: Date.now() - started };
          // Load goes on for a while after the server is back, to show that the demo recovers by itself.
          await new Promise((resolve) => setTimeout(resolve, afterMs));
        })();
        const log = await runWriteLoad({ baseUrl, token, durationMs: loadMs, clients: 4, extendUntil: fault });
        await fault;
        const window = outage as { from: number; down: number; up: number; to: number };
        const result = reconcile(log, await database.rows(log.rowsSql));
        const statuses = new Map<number, number>();
        for (const write of log.writes) statuses.set(write.status, (statuses.get(write.status) ?? 0) + 1);
        console.log(
          `${name}: ${what} stopped at ${window.from} ms (down at ${window.down}), started at ${window.up} ms (serving at ${window.to}) of ${log.durationMs} ms: ${log.writes.length} writes, statuses ` +
            `${JSON.stringify(Object.fromEntries(statuses))}; ${result.acknowledged} acknowledged, ${result.unavailable} answered 503 ` +
            `(${result.unavailableApplied} of them applied), ${result.inDoubt} in doubt; probes during the outage: ` +
            `${JSON.stringify(probes.map((p) => p.status))}`,
        );
        const unclean = log.writes.filter(
          (write: LoggedWrite) => !(write.status >= 200 && write.status < 300) && write.status !== 409 && write.status !== 503,
        );
        assert.deepEqual(
          unclean.map((write) => `${write.operation} ${write.record} at ${write.at} ms: ${write.status}`),
          [],
          "every write is answered 2xx, 409 or 503, never 500 nor left without an answer",
        );
        for (const answer of probes) {
          if (answer.status === 200) continue;
          assert.equal(answer.status, 503, answer.body);
          assert.equal(answer.retryAfter, "1");
          assert.deepEqual(JSON.parse(answer.body), { status: 503, message: "Service temporarily unavailable: try again." });
        }
        assert.ok(probes.length > 0, "reads were sent while the server was away");
        if (served) {
          const whileAway = log.writes.filter(
            (write) => write.outcome === "acknowledged" && write.at > window.down && write.at < window.up,
          );
          assert.ok(whileAway.length > 0, `writes are acknowledged while ${what} is away (${window.down}-${window.up} ms)`);
        }
        assert.ok(
          log.writes.some((write) => write.outcome === "acknowledged" && write.at > window.to + 500),
          "writes are acknowledged again after the restart, without restarting the demo",
        );
        assert.deepEqual(
          { lost: result.lost, phantom: result.phantom, mismatched: result.mismatched },
          { lost: [], phantom: [], mismatched: [] },
        );
      } finally {
        await demo.stop();
        await database.close();
        rmSync(directory, { recursive: true, force: true });
      }
    });
  });
}

/** One engine's throwaway server and scratch database, as its restart test needs them. */
export interface ThrowawayEngineFaults {
  readonly name: string;
  /** Why the throwaway server cannot run here, or undefined. */
  unavailable(): Promise<string | undefined>;
  start(): Promise<ThrowawayServer>;
  createScratch(server: string, options: ScratchOptions): Promise<ScratchDatabase>;
}

/**
 * Defines the restart test of one engine on a throwaway server of its own (reported unreachable when that
 * cannot run), its rows read on a fresh connection after the restart.
 */
export async function defineThrowawayRestartFaults(engine: ThrowawayEngineFaults): Promise<void> {
  const reason = await engine.unavailable();
  if (reason !== undefined) {
    reportUnreachable(engine.name, reason, "database restart faults");
    return;
  }
  defineDatabaseRestartFaults(engine.name, async () => {
    const server = await engine.start();
    // Read after the restart on a fresh connection (the first one would be gone with the server).
    const scratch = await engine.createScratch(server.url, { prefix: "tenon_faults", retry: true });
    return {
      name: engine.name,
      url: scratch.url,
      stop: () => server.stop("fast"),
      start: () => server.start(),
      rows: async (sql) => loadRowsOf(await scratch.rows(sql)),
      async close() {
        // The test's own connection ends before the server goes: an idle connection cut by the server is an
        // uncaught error in the MariaDB driver.
        try {
          await scratch.close();
        } finally {
          await server.close();
        }
      },
    };
  });
}
