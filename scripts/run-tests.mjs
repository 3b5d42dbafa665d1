// Runs every compiled test file under dist/test with Node's own test runner.
// Usage: node scripts/run-tests.mjs [path-fragment ...]  (fragments filter the files, e.g. "http/")
import { readdirSync, statSync } from "node:fs";
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
const files = collect(testRoot).filter((file) => filters.length === 0 || filters.some((f) => relative(testRoot, file).includes(f)));
if (files.length === 0) {
  console.error("No compiled test files found under dist/test. Run `npm run build` first.");
  process.exit(1);
}
// A test that hangs fails after two minutes, and the whole run is stopped after twenty, so that CI
// reports a failure instead of waiting for its own time limit.
// The long variants (TENON_LONG=1, `npm run test:reliability`) run for many minutes per file by design: a
// file gets 30 minutes there and the whole run two hours.
const long = process.env.TENON_LONG === "1";
const testTimeout = long ? 30 * 60 * 1000 : 120000;
const result = spawnSync(
  process.execPath,
  ["--test", "--test-concurrency=2", `--test-timeout=${testTimeout}`, "--test-reporter=spec", ...files],
  {
    stdio: "inherit",
    cwd: root,
    timeout: (long ? 120 : 20) * 60 * 1000,
    killSignal: "SIGKILL",
  },
);
if (result.error !== undefined) console.error(`The test run was stopped: ${result.error.message}`);
process.exit(result.status ?? 1);
