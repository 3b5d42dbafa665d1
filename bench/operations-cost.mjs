// What the operations features cost (docs/operations.md#cost): Tenon's contender on S1 and S2 with
// everything off, with metrics on, with metrics and tracing through the OpenTelemetry API alone (no SDK: every
// span a no-op), and with the SDK registered (bench/tenon-app/src/tracing-sdk.ts). Interleaved rounds, so that a
// drift of the machine spreads over every configuration.
//   node bench/operations-cost.mjs [--rounds 3] [--seconds 8] [--warmup 3] [--instructions] [--count 20000]
// Requests per second with wrk (or autocannon), 50 connections, after a warm-up; with --instructions also
// instructions per request under callgrind (bench/instructions.mjs: fixed counts, 15,000 of warm-up). On these
// shared 2-core machines requests per second move by tens of percent; the instruction counts are the figure to
// go by. Needs `npm run build` first (and valgrind for --instructions).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { BENCH_DIR, CONTENDERS } from "./lib/contenders.mjs";
import { sqliteDataset } from "./lib/dataset.mjs";
import { pickLoader, runLoad } from "./lib/load.mjs";
import { startServer } from "./lib/server-process.mjs";
import { median } from "./lib/stats.mjs";

const { values: o } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    seconds: { type: "string", default: "8" },
    warmup: { type: "string", default: "3" },
    instructions: { type: "boolean", default: false },
    count: { type: "string", default: "20000" },
  },
});

const configurations = [
  { id: "off", env: {} },
  { id: "metrics", env: { BENCH_METRICS: "1" } },
  { id: "metrics + tracing (API only)", env: { BENCH_METRICS: "1", BENCH_TRACING: "1" } },
  { id: "metrics + tracing (SDK)", env: { BENCH_METRICS: "1", BENCH_TRACING: "sdk" } },
];
const scenarios = [
  { id: "S1", spec: { kind: "static", method: "GET", path: "/api/health" } },
  { id: "S2", spec: { kind: "static", method: "GET", path: "/api/companies/42" } },
];

const TMP = path.join(BENCH_DIR, "results", "tmp");
fs.mkdirSync(TMP, { recursive: true });
const data = sqliteDataset(TMP, 10000);
const tenon = CONTENDERS.find((c) => c.id === "tenon");
tenon.prepare();
const loader = pickLoader();

/** Requests per second of one configuration on one scenario: a fresh server, a warm-up, the counted load. */
async function requestsPerSecond(scenario, configuration) {
  const server = await startServer({
    args: tenon.args,
    cwd: BENCH_DIR,
    env: { BENCH_DB: "sqlite", BENCH_SQLITE_PATH: data, BENCH_LOG: "", BENCH_ROUTES: "0", ...configuration.env },
  });
  try {
    const load = { loader, port: server.port, spec: scenario.spec, connections: 50, scriptDir: TMP };
    await runLoad({ ...load, seconds: Number(o.warmup) });
    const result = await runLoad({ ...load, seconds: Number(o.seconds) });
    if (result.errors > 0) throw new Error(`${scenario.id} ${configuration.id}: ${result.errors} failed requests`);
    return result.rps;
  } finally {
    await server.stop();
  }
}

/** Instructions per request of one configuration on one scenario (bench/instructions.mjs). */
function instructionsPerRequest(scenario, configuration) {
  const out = execFileSync(process.execPath, [path.join(BENCH_DIR, "instructions.mjs"), "--scenario", scenario.id, "--count", o.count], {
    cwd: BENCH_DIR,
    env: { ...process.env, ...configuration.env },
    encoding: "utf8",
  });
  const m = /: ([\d,]+) instructions per request/.exec(out);
  if (m === null) throw new Error(`instructions.mjs answered no figure:\n${out}`);
  return Number(m[1].replaceAll(",", ""));
}

const rps = new Map();
const instructions = new Map();
const key = (scenario, configuration) => `${scenario.id} ${configuration.id}`;
for (let round = 1; round <= Number(o.rounds); round++) {
  for (const scenario of scenarios) {
    for (const configuration of configurations) {
      const k = key(scenario, configuration);
      const figure = await requestsPerSecond(scenario, configuration);
      rps.set(k, [...(rps.get(k) ?? []), figure]);
      let line = `round ${round} ${k}: ${Math.round(figure)} req/s`;
      if (o.instructions) {
        const counted = instructionsPerRequest(scenario, configuration);
        instructions.set(k, [...(instructions.get(k) ?? []), counted]);
        line += `, ${counted.toLocaleString("en")} instructions per request`;
      }
      console.log(line);
    }
  }
}

const loadAverage = fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0];
console.log(`\nMedians over ${o.rounds} rounds (${loader.version}; load average ${loadAverage} at the end), against "off":`);
const ratio = (figures, base) => `${((median(figures) / median(base) - 1) * 100).toFixed(1).replace(/^(?=\d)/, "+")}%`;
for (const scenario of scenarios) {
  const off = configurations[0];
  for (const configuration of configurations) {
    const k = key(scenario, configuration);
    let line = `${k.padEnd(36)} ${String(Math.round(median(rps.get(k)))).padStart(7)} req/s ${ratio(rps.get(k), rps.get(key(scenario, off))).padStart(7)}`;
    if (o.instructions) {
      const figures = instructions.get(k);
      line += `   ${Math.round(median(figures)).toLocaleString("en").padStart(9)} instr/req ${ratio(figures, instructions.get(key(scenario, off))).padStart(7)}`;
    }
    console.log(line);
  }
}
