// The HAProxy example (examples/haproxy/haproxy.cfg) in front of two demo processes on PostgreSQL: under a
// steady load of reads and inserts, each process in turn is stopped with SIGTERM (it drains: /api/ready
// answers 503 while it still serves) and started again on its port. No request fails, and every insert
// that was answered is in the database. The test takes each step when HAProxy's own statistics say the
// servers are where the step needs them (both up before a stop), never after a fixed sleep: a busy machine
// only makes it wait longer.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ask } from "../http/http-test-client.js";
import { reportUnreachable } from "../orm/engine-availability.js";
import { postgresUnreachable } from "../orm/harness-postgres.js";
import { type DemoDatabase, postgresDemoEngine } from "./demo-engines.js";
import { startLoad, waitFor, type LoadRequest } from "./demo-load.js";
import { startDemo, type DemoProcess } from "./demo-process.js";
import { freePort } from "./free-port.js";
import { backendCounters, bothServersUp, haproxyExample, startHaproxy, statsSection, type HaproxyProcess } from "./haproxy-process.js";

// The example asks for 2000 ms or more: HAProxy's checks take a stopping process out of rotation after about
// one second. The test gives five seconds, so that a machine busy with other suites (checks answered late)
// cannot make HAProxy send a request to a process that has already closed its port.
const drainDelayMs = 5000;

function defineSuite(): void {
  describe("two demo processes behind the HAProxy example", () => {
    let db: DemoDatabase;
    const ports: number[] = [];
    const demos: DemoProcess[] = [];
    let haproxy: HaproxyProcess;
    let front = 0;
    let env: Record<string, string> = {};
    let statsPort = 0;
    const directory = mkdtempSync(join(tmpdir(), "tenon-haproxy-"));

    const startOne = (index: number, reset: boolean): Promise<DemoProcess> =>
      startDemo({ ...env, PORT: String(ports[index]), DEMO_RESET: reset ? "1" : "" });

    before(async () => {
      db = await postgresDemoEngine.open();
      env = { ...db.env, DRAIN_DELAY_MS: String(drainDelayMs), JWT_SECRET: "one-secret-for-both-processes-of-this-test" };
      ports.push(await freePort(), await freePort());
      demos.push(await startOne(0, true));
      demos.push(await startOne(1, false));
      front = await freePort();
      statsPort = await freePort();
      // The example as it is, plus a statistics page for the test to read HAProxy's retry counters from.
      const config = join(directory, "haproxy.cfg");
      writeFileSync(config, readFileSync(haproxyExample, "utf8") + statsSection(statsPort));
      haproxy = await startHaproxy(
        config,
        { TENON_FRONT: `127.0.0.1:${front}`, TENON_1: `127.0.0.1:${ports[0]}`, TENON_2: `127.0.0.1:${ports[1]}` },
        front,
        "/api/live",
      );
    });
    after(async () => {
      await haproxy?.stop();
      for (const demo of demos) await demo.stop("SIGKILL");
      await db?.close();
      rmSync(directory, { recursive: true, force: true });
    });

    test("each process stopped with SIGTERM and started again under load: no request fails, no answered insert is lost", async () => {
      const logon = await ask(front, "/api/logon", { method: "POST", body: JSON.stringify({ username: "editor", password: "editor" }) });
      assert.equal(logon.status, 200, logon.text);
      const auth = { Authorization: `Bearer ${(logon.json as { token: string }).token}` };
      const next = (i: number): LoadRequest =>
        i % 3 === 0
          ? { method: "POST", path: "/api/companies", headers: auth, body: JSON.stringify({ name: `Load ${i}`, creditLimit: "10.00" }) }
          : i % 3 === 1
            ? { method: "GET", path: "/api/companies/1", headers: auth }
            : { method: "GET", path: "/api/live" };
      const load = startLoad(front, { concurrency: 6, next, keep: true });
      const moreAnswers = async (count: number): Promise<void> => {
        const from = load.answered();
        await waitFor(() => load.answered() >= from + count, `${count} more answers`);
      };
      try {
        await moreAnswers(100);
        for (const index of [0, 1]) {
          await bothServersUp(statsPort);
          const stopping = demos[index].stop("SIGTERM");
          const code = await stopping;
          assert.equal(code, 0, demos[index].output());
          await moreAnswers(100);
          demos[index] = await startOne(index, false);
          // Back in rotation after two good checks (500 ms apart).
          await bothServersUp(statsPort);
          await moreAnswers(100);
        }
      } finally {
        const result = await load.stop();
        assert.deepEqual(result.failures, [], `requests without an answer: ${result.failures.slice(0, 5).join("; ")}`);
        const statuses = Object.fromEntries(result.statuses);
        assert.deepEqual(Object.keys(statuses), ["200"], `statuses: ${JSON.stringify(statuses)}\n${haproxy.output()}`);
        const inserted = result.answers
          .filter((answer) => answer.request.method === "POST")
          .map((answer) => (JSON.parse(answer.text) as { id: number }).id);
        assert.ok(inserted.length > 50, `only ${inserted.length} inserts`);
        const rows = await db.rows(`SELECT id FROM companies WHERE name LIKE 'Load %'`);
        const stored = new Set(rows.map((row) => Number(row.id)));
        const lost = inserted.filter((id) => !stored.has(id));
        assert.deepEqual(lost, [], "every answered insert is in the database");
        assert.equal(stored.size, inserted.length, "and nothing else was inserted");
        // HAProxy can hide a refused connection by trying another server; the drain must make that unneeded.
        assert.deepEqual(await backendCounters(statsPort), { retries: 0, redispatches: 0 }, "HAProxy never had to retry");
      }
    });
  });
}

const reason = await postgresUnreachable();
if (reason === undefined) defineSuite();
else reportUnreachable("PostgreSQL", reason, "HAProxy suite");
