// Instructions per request: a contender's server runs under valgrind's callgrind, is warmed by a load generator,
// and then counted while it loads it again. Callgrind counts instructions executed in user space (JavaScript, Node,
// V8 and its helper threads, SQLite), not time: the count is about the same whatever the rest of the machine
// does, where requests per second on a shared VM drift by tens of percent. The kernel is not counted.
//   node bench/instructions-per-request.mjs [--scenario S2] [--contenders raw,tenon] [--warmup 40] [--duration 30] [--loader wrk]
// Scenarios: S1, S2, S3, S4 and S5 (writing scenarios: each server gets a fresh copy of the data and is warmed on
// other rows than the counted ones), S6 (S2 with logging to a file), S7-10, S7-10000. The server runs about
// 50x slower under valgrind, so the warm-up is long; 10 connections. Needs valgrind (Debian's package) and
// wrk, or autocannon from bench/'s dependencies (the load generator's own work is not counted).
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { countUnderCallgrind } from "./lib/callgrind.mjs";
import { BENCH_DIR, CONTENDERS } from "./lib/contenders.mjs";
import { copySqlite, sqliteDataset } from "./lib/dataset.mjs";
import { pickLoader, runLoad } from "./lib/load.mjs";
import { allScenarios } from "./lib/scenarios.mjs";

const { values: o } = parseArgs({
  options: {
    scenario: { type: "string", default: "S2" },
    contenders: { type: "string", default: "raw,tenon" },
    warmup: { type: "string", default: "40" },
    duration: { type: "string", default: "30" },
    connections: { type: "string", default: "10" },
    loader: { type: "string" },
  },
});
const rows = 10000;
const COUNTED = ["S1", "S2", "S3", "S4", "S5", "S6", "S7-10", "S7-10000"];
const scenario = allScenarios(rows).find((s) => s.id === o.scenario && COUNTED.includes(s.id));
if (scenario === undefined) throw new Error(`unknown scenario ${o.scenario}; known: ${COUNTED.join(" ")}`);

const TMP = path.join(BENCH_DIR, "results", "tmp");
fs.mkdirSync(TMP, { recursive: true });
const pristine = sqliteDataset(TMP, rows);
const loader = pickLoader(o.loader);
const load = async (port, spec, seconds) =>
  (await runLoad({ loader, port, spec, connections: Number(o.connections), seconds, scriptDir: TMP })).requests;

for (const id of o.contenders.split(",")) {
  const contender = CONTENDERS.find((c) => c.id === id);
  if (contender === undefined) throw new Error(`unknown contender ${id}`);
  contender.prepare?.();
  const outFile = path.join(TMP, `callgrind-${id}-${process.pid}.out`);
  const data = scenario.write ? copySqlite(pristine, path.join(TMP, `instructions-${id}-${process.pid}.sqlite`)) : pristine;
  const {
    warmed,
    counted: requests,
    instructions,
  } = await countUnderCallgrind({
    args: contender.args,
    cwd: BENCH_DIR,
    stderr: "pipe",
    label: id,
    outFile,
    env: {
      ...process.env,
      NODE_ENV: "production",
      BENCH_DB: "sqlite",
      BENCH_SQLITE_PATH: data,
      BENCH_LOG: "",
      BENCH_LOG_FILE: path.join(TMP, `instructions-${id}.log`),
      BENCH_ROUTES: "0",
      ...scenario.env,
    },
    warm: (port) => load(port, scenario.warmSpec ?? scenario.spec, Number(o.warmup)),
    counted: (port) => load(port, scenario.spec, Number(o.duration)),
  });
  if (data !== pristine) for (const f of [data, `${data}-wal`, `${data}-shm`]) fs.rmSync(f, { force: true });
  console.log(
    `${o.scenario} ${contender.label}: ${Math.round(instructions / requests).toLocaleString("en")} instructions per request (${requests} requests counted after ${warmed} of warm-up)`,
  );
}
