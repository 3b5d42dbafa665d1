// Instructions per request with FIXED request counts: Tenon's contender runs under callgrind, gets `--warmup`
// requests, then `--count` counted ones over 10 keep-alive connections. On a loaded machine a run takes longer
// but divides by the same number of requests (bench/instructions-per-request.mjs counts for a fixed time,
// which on a busy VM counted too few requests to mean anything). The environment reaches the server, so
//   BENCH_METRICS=1 BENCH_TRACING=1 node bench/instructions.mjs --scenario S2
// measures metrics and tracing on (docs/operations.md; BENCH_TRACING=sdk registers the OpenTelemetry SDK).
// `--log` registers the JSON-lines log writer (to a temporary file), as the S6 scenario does: the logging path.
// `--keep` keeps callgrind's output to see where the instructions went. Needs valgrind; `npm run build` first.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";
import { countUnderCallgrind } from "./lib/callgrind.mjs";
import { BENCH_DIR, CONTENDERS } from "./lib/contenders.mjs";
import { sqliteDataset } from "./lib/dataset.mjs";

const { values: o } = parseArgs({
  options: {
    scenario: { type: "string", default: "S2" },
    warmup: { type: "string", default: "15000" },
    count: { type: "string", default: "20000" },
    keep: { type: "boolean", default: false },
    log: { type: "boolean", default: false },
  },
});
const paths = { S1: "/api/health", S2: "/api/companies/42" };
const target = paths[o.scenario];
if (target === undefined) throw new Error(`unknown scenario ${o.scenario}; known: ${Object.keys(paths).join(" ")}`);
const TMP = path.join(BENCH_DIR, "results", "tmp");
fs.mkdirSync(TMP, { recursive: true });
const data = sqliteDataset(TMP, 10000);
const tenon = CONTENDERS.find((c) => c.id === "tenon");
fs.mkdirSync(path.join(BENCH_DIR, "node_modules"), { recursive: true });
tenon.prepare();

/** Sends `n` GET requests over 10 keep-alive connections. */
async function load(port, n) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
  let left = n;
  const loop = async () => {
    while (left-- > 0) {
      await new Promise((resolve, reject) => {
        http
          .get({ host: "127.0.0.1", port, path: target, agent }, (res) => {
            res.resume();
            res.on("end", resolve);
          })
          .on("error", reject);
      });
    }
  };
  await Promise.all(Array.from({ length: 10 }, loop));
  agent.destroy();
}

const outFile = path.join(TMP, `callgrind-fixed-${process.pid}.out`);
const { instructions: total } = await countUnderCallgrind({
  args: tenon.args,
  cwd: BENCH_DIR,
  outFile,
  env: {
    ...process.env,
    NODE_ENV: "production",
    BENCH_DB: "sqlite",
    BENCH_SQLITE_PATH: data,
    BENCH_LOG: o.log ? "file" : "",
    BENCH_LOG_FILE: path.join(TMP, `instructions-fixed-${process.pid}.log`),
    BENCH_ROUTES: "0",
  },
  warm: (port) => load(port, Number(o.warmup)),
  counted: (port) => load(port, Number(o.count)),
  keep: o.keep,
});
if (o.keep) console.log(`callgrind output kept: ${outFile}* (callgrind_annotate --inclusive=no <file>)`);
const loadAverage = fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0];
console.log(
  `${o.scenario}${o.log ? " with the log writer" : ""} Tenon: ${Math.round(total / Number(o.count)).toLocaleString("en")} instructions per request (${o.count} counted after ${o.warmup}; load ${loadAverage})`,
);
