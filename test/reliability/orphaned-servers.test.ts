// Servers that a killed test run leaves behind (a Galera cluster, a throwaway PostgreSQL or MariaDB, PgBouncer)
// do not linger: each directory's watchdog cleans up once its owner is gone, the next start of any server
// sweeps directories whose owner is gone, and both kill only processes whose command line names that directory
// (test/support/owned-directory.ts). `scripts/galera.sh down` signals only such processes too.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { reportUnreachable } from "../orm/engine-availability.js";
import { stopGaleraCluster } from "../support/galera-cluster.js";
import { isOrphaned, sweepOrphans } from "../support/owned-directory.js";
import { pgBouncerUnavailable } from "../support/pgbouncer.js";
import { commandLineOf, processAlive } from "../support/server-processes.js";

const fixture = fileURLToPath(new URL("./orphan-fixture.js", import.meta.url));

/** Resolves once `check` holds, polling; false after `ms`. */
async function eventually(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** A `sleep` whose command line names `path` (as a server's --datadir would), in a process group of its own. */
function sleeper(path: string): ChildProcess {
  // Not `exec sleep`: the shell must stay, as its $0 is the argument that names the path.
  const child = spawn("sh", ["-c", "sleep 600; true", path], { detached: true, stdio: "ignore" });
  child.unref();
  return child;
}

/** Kills a sleeper and its `sleep`. */
function killGroup(child: ChildProcess): void {
  try {
    process.kill(-(child.pid as number), "SIGKILL");
  } catch {
    // Gone already.
  }
}

/** Processes whose command line names `directory` (an argument equal to it or under it). */
function processesNaming(directory: string): number[] {
  return spawnedPids.filter(
    (pid) => processAlive(pid) && commandLineOf(pid).some((arg) => arg === directory || arg.startsWith(`${directory}/`)),
  );
}
const spawnedPids: number[] = [];

/** The pid of a process that has exited. */
async function exitedPid(): Promise<number> {
  const child = spawn("true", { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid as number;
}

/** A directory as the helpers make it, in `parent`, with an owner file naming `pid` (started at `started` ticks after boot). */
function ownedBy(parent: string, prefix: string, owner: { pid: number; started: number; kept: boolean }): string {
  const directory = mkdtempSync(join(parent, prefix));
  writeFileSync(join(directory, ".tenon-owner.json"), `${JSON.stringify(owner)}\n`);
  return directory;
}

test("the sweep removes a directory whose owner is gone and kills only the processes naming it", async (t) => {
  // In a parent of this test's own: the sweep that every start of a server runs (in this run's other files, in
  // other runs on the machine) looks in the temporary directory itself, and would take this orphan first.
  const parent = mkdtempSync(join(tmpdir(), "tenon-sweep-test-"));
  const orphan = ownedBy(parent, "tenon-pg-", { pid: await exitedPid(), started: 0, kept: false });
  const inside = sleeper(join(orphan, "data"));
  // Same prefix, one character more: a process of another directory whose name merely starts alike.
  const lookalike = sleeper(`${orphan}x/data`);
  const kept = ownedBy(parent, "tenon-galera-", { pid: await exitedPid(), started: 0, kept: true });
  const unowned = mkdtempSync(join(parent, "tenon-mariadb-"));
  const bystander = sleeper(join(unowned, "data"));
  for (const child of [inside, lookalike, bystander]) spawnedPids.push(child.pid as number);
  t.after(() => {
    for (const child of [inside, lookalike, bystander]) killGroup(child);
    spawn("rm", ["-rf", parent]);
  });

  assert.ok(isOrphaned(orphan));
  const swept = sweepOrphans(parent);
  assert.ok(swept.includes(orphan), `swept: ${swept.join(", ")}`);
  assert.ok(!existsSync(orphan), "the orphan's directory is removed");
  assert.ok(await eventually(() => !processAlive(inside.pid as number), 5000), "the process naming it is killed");
  assert.ok(processAlive(lookalike.pid as number), "a process of a directory whose name only starts alike keeps running");
  assert.ok(existsSync(kept) && existsSync(unowned), "a kept directory (galera.sh up) and one without an owner file stay");
  assert.ok(processAlive(bystander.pid as number), "and so do their processes");
});

test("scripts/galera.sh down signals only processes whose command line names the cluster's directory", async (t) => {
  const directory = mkdtempSync(join(tmpdir(), "tenon-galera-"));
  const node = sleeper(join(directory, "node1"));
  // A pid recorded in a stale state file that now belongs to something else.
  const stranger = sleeper(join(tmpdir(), "somewhere-else"));
  for (const child of [node, stranger]) spawnedPids.push(child.pid as number);
  t.after(() => {
    for (const child of [node, stranger]) killGroup(child);
  });
  const port = (pid: number, index: number) => ({
    name: `node${index}`,
    port: 1,
    galeraPort: 1,
    istPort: 1,
    sstPort: 1,
    dataDirectory: join(directory, `node${index}`),
    pid,
  });
  await stopGaleraCluster({
    directory,
    nodes: [port(node.pid as number, 1), port(stranger.pid as number, 2)],
    haproxyPort: 1,
    haproxyPid: stranger.pid as number,
    url: "mariadb://root@127.0.0.1:1/",
  });
  assert.ok(await eventually(() => !processAlive(node.pid as number), 5000), "the node naming the directory is stopped");
  assert.ok(processAlive(stranger.pid as number), "the process that only has a recorded pid keeps running");
  assert.ok(!existsSync(directory), "the directory is removed");
  assert.deepEqual(processesNaming(directory), []);
});

const unavailable = pgBouncerUnavailable();
if (unavailable !== undefined) reportUnreachable("PgBouncer", unavailable, "orphaned server test");
else {
  test("a server left by a test run killed with SIGKILL is stopped by its watchdog, and its directory removed", async () => {
    const run = spawn(process.execPath, [fixture], { stdio: ["ignore", "pipe", "inherit"] });
    const started = await new Promise<{ directory: string; port: number }>((resolve, reject) => {
      let text = "";
      run.stdout?.on("data", (chunk: Buffer) => {
        text += chunk.toString("utf8");
        const line = text.split("\n").find((each) => each.startsWith("{"));
        if (line !== undefined) resolve(JSON.parse(line) as { directory: string; port: number });
      });
      run.once("exit", (code) => reject(new Error(`the fixture exited with ${code} before starting its server`)));
    });
    assert.ok(await listening(started.port), "PgBouncer listens while its owner runs");
    run.kill("SIGKILL");
    const gone = await eventually(async () => !existsSync(started.directory) && !(await listening(started.port)), 10_000);
    assert.ok(gone, `PgBouncer on ${started.port} and ${started.directory} are gone within 10 s of the SIGKILL`);
  });
}
