#!/usr/bin/env node
// `npm run bench [-- options]`: makes sure everything the benchmark needs is there, then runs
// bench/compare-contenders.mjs with the options passed through (see its header: --quick, --scenario S2, --rounds 3 ...).
//   1. the library's own dependencies (npm ci at the root on a fresh clone) and bench/'s (npm ci in bench/);
//   2. a load generator: wrk when it is installed (it is never installed from here), else autocannon from
//      bench/'s dependencies;
//   3. the built framework (tsc at the root, then the bundle of scripts/build.mjs) when the Tenon contender is present.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bench = path.join(root, "bench");
const args = process.argv.slice(2);
const sh = (cmd, cmdArgs, cwd) => {
  console.log(`bench: ${cmd} ${cmdArgs.join(" ")}${cwd === root ? "" : ` (in ${path.relative(root, cwd)})`}`);
  execFileSync(cmd, cmdArgs, { cwd, stdio: "inherit" });
};
const has = (cmd) => spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;

if (!fs.existsSync(path.join(root, "node_modules", "better-sqlite3"))) sh("npm", ["ci"], root);
if (!fs.existsSync(path.join(bench, "node_modules", "fastify"))) sh("npm", ["ci", "--no-audit", "--no-fund"], bench);

const wantsAutocannon = args.some((a, i) => (a === "--loader" && args[i + 1] === "autocannon") || a === "--loader=autocannon");
const wantsWrk = args.some((a, i) => (a === "--loader" && args[i + 1] === "wrk") || a === "--loader=wrk");
if (!wantsAutocannon && !has("wrk")) {
  // No system package is installed behind the caller's back: say what is missing, and stop when it was asked for.
  if (wantsWrk) {
    console.error("bench: --loader wrk was asked for and wrk is not installed (Debian: apt-get install wrk); stopping");
    process.exit(1);
  }
  console.log("bench: wrk is not installed (Debian: apt-get install wrk); autocannon (bench/node_modules) generates the load instead");
}

if (fs.existsSync(path.join(bench, "tenon-app", "tsconfig.json"))) {
  // The Tenon contender imports the built package; tsc still emits when files elsewhere have type errors.
  const r = spawnSync(process.execPath, [path.join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "."], {
    cwd: root,
    stdio: "pipe",
    encoding: "utf8",
  });
  console.log(`bench: tsc -p . at the root ${r.status === 0 ? "done" : "reported type errors (output emitted anyway)"}`);
  // `import "tenon"` loads the bundle made from that output (scripts/build.mjs).
  const { bundle } = await import("./build.mjs");
  await bundle();
  console.log("bench: dist/pkg bundled");
}

const run = spawnSync(process.execPath, [path.join(bench, "compare-contenders.mjs"), ...args], {
  cwd: bench,
  stdio: "inherit",
  env: { ...process.env, BENCH_COMMAND: `npm run bench${args.length ? ` -- ${args.join(" ")}` : ""}` },
});
process.exit(run.status ?? 1);
