// WORKERS=N: the demo served by N node:cluster workers sharing one port, on its default SQLite file. Real
// processes: a worker killed is replaced, SIGHUP replaces every worker under load without a failed request,
// and one SIGTERM stops them all with exit code 0.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, before, describe, test } from "node:test";
import { ask } from "../http/http-test-client.js";
import { type DemoDatabase, sqliteDemoEngine } from "./demo-engines.js";
import { startLoad, waitFor, type LoadRequest } from "./demo-load.js";
import { startDemo, type DemoProcess } from "./demo-process.js";

/** The pids of the workers that reported serving, in order. */
function servingPids(demo: DemoProcess): number[] {
  return [...demo.output().matchAll(/tenon: worker (\d+) serving/g)].map((match) => Number(match[1]));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function tokenOf(port: number, user: string): Promise<string> {
  const answer = await ask(port, "/api/logon", { method: "POST", body: JSON.stringify({ username: user, password: user }) });
  assert.equal(answer.status, 200, answer.text);
  return (answer.json as { token: string }).token;
}

describe("the demo with WORKERS=2 on SQLite", () => {
  let db: DemoDatabase;
  let demo: DemoProcess;
  let token = "";
  let editor = "";

  before(async () => {
    db = await sqliteDemoEngine.open();
    demo = await startDemo({ ...db.env, WORKERS: "2", DEMO_RESET: "1" });
    await waitFor(() => /tenon: primary \d+ serves with workers/.test(demo.output()), "both workers");
    token = await tokenOf(demo.port, "guest");
    editor = await tokenOf(demo.port, "editor");
  });

  /** The ids of the answered inserts of a load, checked against the rows of the SQLite file. */
  async function reconcileInserts(
    answers: readonly { request: LoadRequest; status: number; text: string }[],
    prefix: string,
  ): Promise<number> {
    const ids = answers
      .filter((answer) => answer.request.method === "POST")
      .map((answer) => (JSON.parse(answer.text) as { id: number }).id);
    assert.equal(new Set(ids).size, ids.length, "no key was handed out twice");
    const rows = await db.rows(`SELECT ID AS id FROM Companies WHERE Name LIKE '${prefix}%'`);
    const stored = new Set(rows.map((row) => Number(row.id)));
    assert.deepEqual(
      ids.filter((id) => !stored.has(id)),
      [],
      "every answered insert is in the file",
    );
    assert.equal(stored.size, ids.length, "and no insert that was not answered");
    return ids.length;
  }
  after(async () => {
    await demo?.stop("SIGKILL");
    await db?.close();
  });

  test("two worker processes serve one port, accept each other's tokens, and the balancer routes answer", async () => {
    const pids = servingPids(demo);
    assert.equal(pids.length, 2);
    assert.ok(pids.every(alive));
    assert.deepEqual((await ask(demo.port, "/api/live")).json, { status: "ok" });
    assert.deepEqual((await ask(demo.port, "/api/ready")).json, { status: "ok" });
    // Fresh connections go to the workers in turn: a token one worker issued must pass on the other.
    for (let i = 0; i < 6; i++) {
      const companies = await ask(demo.port, "/api/companies", { headers: { Authorization: `Bearer ${token}` } });
      assert.equal(companies.status, 200, companies.text);
    }
  });

  test("two workers inserting at once into one SQLite file hand out no key twice and lose no write", async () => {
    const insert = (i: number): LoadRequest => ({
      method: "POST",
      path: "/api/companies",
      headers: { Authorization: `Bearer ${editor}` },
      body: JSON.stringify({ name: `Parallel ${i}`, creditLimit: "1.00" }),
    });
    const load = startLoad(demo.port, { concurrency: 8, next: insert, keep: true, keepAlive: false });
    await waitFor(() => load.answered() >= 200, "200 inserts");
    const result = await load.stop();
    assert.deepEqual(result.failures, []);
    assert.deepEqual([...result.statuses.keys()], [200], `statuses: ${JSON.stringify([...result.statuses])}`);
    assert.ok((await reconcileInserts(result.answers, "Parallel ")) >= 200);
  });

  test("a worker killed with SIGKILL is replaced by a new one, and the port keeps answering", async () => {
    const [victim] = servingPids(demo);
    const before = servingPids(demo).length;
    process.kill(victim, "SIGKILL");
    await waitFor(() => servingPids(demo).length === before + 1, "a replacement worker");
    assert.match(demo.output(), new RegExp(`tenon: worker ${victim} died \\(exit code null, signal SIGKILL\\); replacing it`));
    const replacement = servingPids(demo).at(-1)!;
    assert.notEqual(replacement, victim);
    assert.ok(alive(replacement));
    for (let i = 0; i < 20; i++) assert.equal((await ask(demo.port, "/api/live")).status, 200);
  });

  test("SIGHUP under a load of reads and inserts replaces every worker one at a time; no request fails, no insert is lost", async () => {
    const serving = servingPids(demo);
    const old = serving.slice(-2);
    const reads: LoadRequest[] = [
      { method: "GET", path: "/api/companies", headers: { Authorization: `Bearer ${token}` } },
      { method: "GET", path: "/api/employees/1", headers: { Authorization: `Bearer ${token}` } },
      { method: "GET", path: "/api/live" },
    ];
    const next = (i: number): LoadRequest =>
      i % 4 === 3
        ? {
            method: "POST",
            path: "/api/companies",
            headers: { Authorization: `Bearer ${editor}` },
            body: JSON.stringify({ name: `Rolling ${i}` }),
          }
        : reads[i % 4];
    const load = startLoad(demo.port, { concurrency: 8, next, keep: true });
    await waitFor(() => load.answered() > 200, "the load to run");
    process.kill(pidOfPrimary(demo), "SIGHUP");
    await waitFor(() => demo.output().includes("tenon: rolling restart done"), "the rolling restart", 60000);
    const answeredAtRestart = load.answered();
    await waitFor(() => load.answered() > answeredAtRestart + 200, "the load to go on");
    const result = await load.stop();
    assert.deepEqual(result.failures, [], `requests without an answer: ${result.failures.slice(0, 5).join("; ")}`);
    assert.deepEqual([...result.statuses.keys()], [200], `statuses: ${JSON.stringify([...result.statuses])}`);
    assert.ok((await reconcileInserts(result.answers, "Rolling ")) > 0);
    const now = servingPids(demo).slice(-2);
    for (const pid of old) {
      assert.ok(!now.includes(pid), `worker ${pid} was replaced`);
      await waitFor(() => !alive(pid), `worker ${pid} to exit`);
    }
    assert.ok(now.every(alive));
  });

  test("one SIGTERM to the primary stops every worker, and the primary exits 0", async () => {
    const workers = servingPids(demo).filter(alive);
    assert.equal(workers.length, 2);
    const begun = Date.now();
    const code = await demo.stop("SIGTERM");
    assert.equal(code, 0, demo.output());
    assert.ok(Date.now() - begun < 15000);
    for (const pid of workers) assert.ok(!alive(pid), `worker ${pid} is gone`);
  });
});

function pidOfPrimary(demo: DemoProcess): number {
  const match = /tenon: primary (\d+) serves/.exec(demo.output());
  assert.ok(match !== null);
  return Number(match[1]);
}

describe("the demo with WORKERS=2 when a worker cannot start", () => {
  test("the primary stops the workers that did start and exits with a failure, leaving no process behind", async () => {
    const db = await sqliteDemoEngine.open();
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const address = taken.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    try {
      const failure = await startDemo({ ...db.env, WORKERS: "2", DEMO_RESET: "1", PORT: String(port) }).then(
        () => undefined,
        (error: Error) => error.message,
      );
      assert.ok(failure !== undefined, "the demo did not start");
      assert.match(failure, /exited with code 1 before listening/);
      const workers = [...failure.matchAll(/tenon: worker (\d+) /g)].map((match) => Number(match[1]));
      for (const pid of workers) await waitFor(() => !alive(pid), `worker ${pid} to exit`);
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
      await db.close();
    }
  });
});
