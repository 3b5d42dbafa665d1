// Instructions per request with FIXED request counts: Tenon's contender runs under callgrind, gets `--warmup`
// requests, then `--count` counted ones over 10 keep-alive connections. On a loaded machine a run takes longer
// but divides by the same number of requests (bench/instructions-per-request.mjs counts for a fixed time,
// which on a busy VM counted too few requests to mean anything). The environment reaches the server, so
//   BENCH_METRICS=1 BENCH_TRACING=1 node bench/instructions.mjs --scenario S2
// measures metrics and tracing on (docs/operations.md; BENCH_TRACING=sdk registers the OpenTelemetry SDK).
// `--log` registers the JSON-lines log writer (to a temporary file), as the S6 scenario does: the logging path.
// `--keep` keeps callgrind's output to see where the instructions went. Needs valgrind; `npm run build` first.
// S4 sends the PUT of the S4 scenario (bench/lib/requests.mjs), each row in turn at the version it is at; with
// `BENCH_POLICY=1` the server serves a Company under a row and column policy (docs/policies.md), so
//   BENCH_POLICY=1 node bench/instructions.mjs --scenario S4
// is the policy-scoped S4 to set beside the plain one.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";
import { countUnderCallgrind } from "./lib/callgrind.mjs";
import { BENCH_DIR, CONTENDERS } from "./lib/contenders.mjs";
import { copySqlite, removeSqlite, sqliteDataset } from "./lib/dataset.mjs";
import { updateBody } from "./lib/requests.mjs";

const { values: o } = parseArgs({
  options: {
    scenario: { type: "string", default: "S2" },
    warmup: { type: "string", default: "15000" },
    count: { type: "string", default: "20000" },
    keep: { type: "boolean", default: false },
    log: { type: "boolean", default: false },
  },
});
const paths = { S1: "/api/health", S2: "/api/companies/42", S4: "/api/companies" };
const target = paths[o.scenario];
const rows = 10000;
if (target === undefined) throw new Error(`unknown scenario ${o.scenario}; known: ${Object.keys(paths).join(" ")}`);
const TMP = path.join(BENCH_DIR, "results", "tmp");
fs.mkdirSync(TMP, { recursive: true });
const pristine = sqliteDataset(TMP, rows);
// A writing scenario works on a copy of the data set, so every run starts from the same versions.
const data = o.scenario === "S4" ? copySqlite(pristine, path.join(TMP, `instructions-${process.pid}.sqlite`)) : pristine;
const tenon = CONTENDERS.find((c) => c.id === "tenon");
fs.mkdirSync(path.join(BENCH_DIR, "node_modules"), { recursive: true });
tenon.prepare();

/** The version each row is at (the data set starts every row at 1), and the next row S4 updates. */
const versions = new Map();
let nextRow = 0;

/** One request of the scenario: a GET, or for S4 the PUT of the next row at its version (a failed PUT stops the run). */
function send(port, agent) {
  if (o.scenario !== "S4") {
    return new Promise((resolve, reject) => {
      http
        .get({ host: "127.0.0.1", port, path: target, agent }, (res) => {
          res.resume();
          res.on("end", resolve);
        })
        .on("error", reject);
    });
  }
  const id = (nextRow++ % rows) + 1;
  const version = versions.get(id) ?? 1;
  const body = updateBody(id, version);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: "127.0.0.1",
        port,
        path: target,
        method: "PUT",
        agent,
        headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) },
      },
      (res) => {
        let text = "";
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => {
          if (res.statusCode !== 200) reject(new Error(`PUT ${id} at ${version}: ${res.statusCode} ${text}`));
          versions.set(id, version + 1);
          resolve();
        });
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

/** Sends `n` requests over 10 keep-alive connections. */
async function load(port, n) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
  let left = n;
  const loop = async () => {
    while (left-- > 0) await send(port, agent);
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
if (data !== pristine) removeSqlite(data);
if (o.keep) console.log(`callgrind output kept: ${outFile}* (callgrind_annotate --inclusive=no <file>)`);
const loadAverage = fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0];
console.log(
  `${o.scenario}${o.log ? " with the log writer" : ""}${process.env.BENCH_POLICY === "1" ? " under a policy" : ""} Tenon: ${Math.round(total / Number(o.count)).toLocaleString("en")} instructions per request (${o.count} counted after ${o.warmup}; load ${loadAverage})`,
);
