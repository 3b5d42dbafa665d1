// Runs every compiled test file under dist/test with Node's own test runner.
// Usage: node scripts/run-tests.mjs [path-fragment ...]  (fragments filter the files, e.g. "http/")
import { readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { spawnSync } from "node:child_process";

const root = new URL("..", import.meta.url).pathname;
const testRoot = join(root, "dist", "test");

function collect(dir) {
  const files = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...collect(path));
    else if (name.endsWith(".test.js")) files.push(path);
  }
  return files;
}

const filters = process.argv.slice(2);
const all = collect(testRoot);
const files = all.filter((file) => filters.length === 0 || filters.some((f) => relative(testRoot, file).includes(f)));
if (files.length === 0) {
  console.error("No compiled test files found under dist/test. Run `npm run build` first.");
  process.exit(1);
}
// A fragment that names no file is a mistake (a renamed suite, a typo in .ci/run's subsets), never a silent pass.
const unmatched = filters.filter((f) => !all.some((file) => relative(testRoot, file).includes(f)));
if (unmatched.length > 0) {
  console.error(`No compiled test file matches ${unmatched.map((f) => `"${f}"`).join(", ")} under dist/test.`);
  process.exit(1);
}
// Node's runner (20.x) applies --test-timeout to each test file as a whole, not only to each test in it. The
// machine this suite runs on is shared (other suites, other people's runs against the same servers), and a
// file of the demo suite takes several minutes there: so a file that hangs fails after twenty minutes, and the
// whole run is stopped after an hour, so that CI reports a failure instead of waiting for its own time limit.
// These bounds say "hung", never "slow": a test asserts no wall-clock bound that load can break.
// The long variants (TENON_LONG=1, `npm run test:reliability`) run for many minutes per file by design: a
// file gets 30 minutes there and the whole run two hours.
// A file that starts a whole cluster of its own (Galera, Patroni: three nodes, the ORM, demo and failover suites
// on them) counts as one test for the runner: such files run after the others, one at a time (no other suite
// competing for the cores), with twenty minutes each.
const long = process.env.TENON_LONG === "1";
const testTimeout = long ? 30 * 60 * 1000 : 20 * 60 * 1000;
const clusterFiles = ["orm/galera.test.js", "reliability/change-feed-proof-galera.test.js", "orm/patroni.test.js"];
const isClusterFile = (file) => clusterFiles.includes(relative(testRoot, file));

function runFiles(group, timeout, concurrency, totalMinutes, prefix = []) {
  if (group.length === 0) return 0;
  const command = [
    process.execPath,
    // The tests import Tenon's compiled files one by one (dist/src) beside `tenon`: this condition makes `tenon` those
    // same files, not the bundle (dist/pkg) that users load, so each class exists once (scripts/build.mjs). Node's
    // runner passes it on to every test file's process; a process a test starts as a user would loads the bundle.
    "--conditions=tenon-source",
    "--test",
    `--test-concurrency=${concurrency}`,
    `--test-timeout=${timeout}`,
    "--test-reporter=spec",
    ...group,
  ];
  const result = spawnSync([...prefix, ...command][0], [...prefix, ...command].slice(1), {
    stdio: "inherit",
    cwd: root,
    timeout: totalMinutes * 60 * 1000,
    killSignal: "SIGKILL",
  });
  if (result.error !== undefined) console.error(`The test run was stopped: ${result.error.message}`);
  return result.status ?? 1;
}

const first = runFiles(
  files.filter((file) => !isClusterFile(file)),
  testTimeout,
  2,
  long ? 120 : 60,
);
// Two runs on one machine (two clones, two developers) run their cluster files one after the other: six
// database nodes and their suites on the same two cores starve each other's group communication (a Galera
// node that misses its peers' heartbeats leaves the primary component). A lock file held with flock(1), where
// the machine has it, does that; the wait is part of the run's time.
const clusterFilesToRun = files.filter(isClusterFile);
const lockFile = join(tmpdir(), "tenon-test-clusters.lock");
const hasFlock = clusterFilesToRun.length > 0 && spawnSync("flock", ["--version"], { stdio: "ignore" }).status === 0;
if (hasFlock && spawnSync("flock", ["-n", lockFile, "true"], { stdio: "ignore" }).status !== 0)
  console.log(`# waiting for another test run on this machine to finish its cluster files (${lockFile})`);
const clusters = runFiles(clusterFilesToRun, testTimeout, 1, long ? 90 : 60, hasFlock ? ["flock", lockFile] : []);
process.exit(first !== 0 ? first : clusters);
