// Instructions per request with FIXED request counts, for every contender in one run: each server runs under
// callgrind, gets `--warmup` requests uncounted, then `--windows` times `--count` counted ones, all over the same
// 10 keep-alive connections; its figure is its cheapest window. On a loaded machine a run takes longer but
// divides by the same number of requests, so this is the figure of record (docs/benchmarks.md); requests per
// second come from `npm run bench`.
//   node bench/instructions.mjs                                   # S1 S2 S4 S5, all five contenders (an hour or more)
//   node bench/instructions.mjs --contenders raw,tenon            # before a change to the request path
//   node bench/instructions.mjs --scenario S2 --contenders tenon --keep   # callgrind's output, to see where
//   node bench/instructions.mjs --scenario S8,S9                  # the 404s: an unknown route, an id no row has
// Every run prints each contender's instructions per request and its ratio to raw, and Tenon's ratios beside the
// last recorded ones (bench/results/instructions.json); `--record` makes this run the recorded one.
// The environment reaches the servers, so BENCH_METRICS=1 / BENCH_TRACING=1 measure metrics and tracing on
// (docs/operations.md), and BENCH_POLICY=1 serves the Company under a row and column policy (docs/policies.md);
// `--log` registers the JSON-lines log writer (to a temporary file), as S6 does.
// Needs valgrind; builds what it needs (`tsc` for the Tenon and NestJS contenders) but not the framework:
// `npm run build` first.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";
import { countUnderCallgrind } from "./lib/callgrind.mjs";
import { BENCH_DIR, namedContenders, ROOT_DIR } from "./lib/contenders.mjs";
import { copySqlite, sqliteDataset } from "./lib/dataset.mjs";
import { updateBody } from "./lib/requests.mjs";
import { selectBody } from "./lib/scenarios.mjs";

const { values: o } = parseArgs({
  options: {
    scenario: { type: "string", default: "S1,S2,S4,S5" },
    contenders: { type: "string", default: "raw,tenon,fastify,express,nest" },
    // Node.js 20's V8 settles after 8,000 requests; newer lines tier up later (see `defaultWarmup` below).
    warmup: { type: "string" },
    windows: { type: "string", default: "2" },
    count: { type: "string", default: "5000" },
    keep: { type: "boolean", default: false },
    log: { type: "boolean", default: false },
    record: { type: "boolean", default: false },
    "node-flags": { type: "string", default: "--no-memory-reducer --single-threaded-gc" },
  },
});
const ROWS = 10000;
const HALF = ROWS / 2;
const RECORD = path.join(BENCH_DIR, "results", "instructions.json");
const INSERT_BODY = JSON.stringify({ name: "New Company", email: "new@example.com", vatNumber: "FR12345678901", creditLimit: 5000 });

/**
 * The scenarios counted here, each a source of requests: `next(phase)` answers the next `[method, path, body]`
 * of the warm-up (`"warm"`) or of the counted windows (`"count"`).
 */
const SCENARIOS = {
  S1: { title: "GET constant JSON", source: () => () => ["GET", "/api/health", undefined] },
  S2: {
    title: "GET one company by id",
    source: () => {
      // A fixed pseudo-random walk over the ids (the same in every run, for every contender).
      let x = 12345;
      return () => {
        x = (Math.imul(x, 1103515245) + 12345) >>> 0;
        return ["GET", `/api/companies/${1 + (x % ROWS)}`, undefined];
      };
    },
  },
  // Not in the default set: a few hundred times dearer than S2 (the database's work), so counting it takes long.
  S3: { title: "POST select: LIKE + order + page of 100 + count", source: () => () => ["POST", "/api/companies/select", selectBody(100)] },
  S4: {
    title: "PUT with version check (update + reload)",
    write: true,
    // The warm-up updates the upper half of the rows in turn, the count the lower half: the load always
    // knows the version a row is at (every server gets a fresh copy of the data).
    source: () => {
      const counters = { warm: 0, count: 0 };
      return (phase) => {
        const lo = phase === "warm" ? HALF + 1 : 1;
        const n = counters[phase]++;
        return ["PUT", "/api/companies", updateBody(lo + (n % HALF), 1 + Math.floor(n / HALF))];
      };
    },
  },
  S5: {
    title: "POST insert: validation + audit columns + sequence",
    write: true,
    source: () => () => ["POST", "/api/companies", INSERT_BODY],
  },
  // Not in the default set: the answers a public API gives most after its successes. Each contender answers 404
  // its own way (raw: a branch of its router; Fastify: its not-found handler; Tenon: an HttpError, answered).
  S8: { title: "GET of an unknown route (404)", status: 404, source: () => () => ["GET", "/api/nothing/here", undefined] },
  S9: {
    title: "GET of an id no row has (404)",
    status: 404,
    source: () => {
      let n = 0;
      return () => ["GET", `/api/companies/${ROWS + 1 + (n++ % ROWS)}`, undefined];
    },
  },
};

/**
 * Sends `n` requests from `next(phase)` over the 10 keep-alive connections of `agent`; throws on an answer other
 * than `expected` (200, or the status a scenario asks for). Every phase of a server uses the same connections: a
 * connection closed and another opened between warm-up and count would send the count through code that V8
 * deoptimizes and compiles again (measured: 25 deoptimizations and 45 compilations in node:http's and node:stream's
 * functions after such a change).
 */
async function load(port, agent, n, next, phase, expected = 200) {
  if (n <= 0) return 0;
  let left = n;
  let failure;
  const one = ([method, target, body], retried = false) =>
    new Promise((resolve, reject) => {
      const headers = body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(body) };
      const req = http.request({ host: "127.0.0.1", port, method, path: target, headers, agent }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (text += d));
        res.on("end", () => {
          if (res.statusCode !== expected) failure ??= new Error(`${method} ${target}: ${res.statusCode} ${text.slice(0, 300)}`);
          resolve();
        });
      });
      // A kept-alive connection the server closed just as the request went out: sent again on a new one.
      req.on("error", (error) => (req.reusedSocket && !retried ? one([method, target, body], true).then(resolve, reject) : reject(error)));
      req.end(body);
    });
  const loop = async () => {
    while (left-- > 0 && failure === undefined) await one(next(phase));
  };
  await Promise.all(Array.from({ length: 10 }, loop));
  if (failure !== undefined) throw failure;
  return n;
}

const wanted = o.scenario.split(",").map((s) => s.trim().toUpperCase());
for (const s of wanted)
  if (SCENARIOS[s] === undefined) throw new Error(`unknown scenario ${s}; known: ${Object.keys(SCENARIOS).join(" ")}`);
const contenders = namedContenders(o.contenders);
const TMP = path.join(BENCH_DIR, "results", "tmp");
fs.mkdirSync(TMP, { recursive: true });
fs.mkdirSync(path.join(BENCH_DIR, "node_modules"), { recursive: true });
const pristine = sqliteDataset(TMP, ROWS);
for (const c of contenders) c.prepare?.();
// On Node.js 26, after 8,000 warm-up requests V8's compiler threads were still at work through both windows (88k to
// 104k instructions a request on the background threads, raw and Tenon alike, and the main thread running code of
// the middle tier): the count was not yet that of a warm server. After 30,000 they ran some 100 a request.
const defaultWarmup = Number(process.versions.node.split(".")[0]) >= 22 ? 30000 : 8000;
const [warmup, windows, count] = [Number(o.warmup ?? defaultWarmup), Number(o.windows), Number(o.count)];
// What is counted is the main thread: JavaScript, Node, SQLite and (with --single-threaded-gc) all of the garbage
// collector. V8's other threads compile hot functions. Under callgrind a server runs some 50 times slower, so
// what runs per unit of time (timers, and the code paths they take) runs 50 times as often per request, and a
// few functions are deoptimized and compiled again after the count begins, in one window or another: a
// compilation costs tens of millions of instructions, and Tenon's S1 counted 65k and 120k instructions a request
// in two runs of one build (69.6k and 79.5k on the main thread alone, the second with node:http's functions
// deoptimized for part of its window). Raw's windows differ by 1%. So the figure is the cheapest of the
// windows, the main thread's; the other threads' instructions are printed apart ("background").
// V8's memory reducer starts a full garbage collection when the allocation rate per millisecond is low, which
// under callgrind it always is: full collections that a server at native speed under the same load never runs
// (Tenon S2: 13k instructions a request). Every contender gets the same flags.
const nodeFlags = o["node-flags"].split(" ").filter((f) => f !== "");

const git = (...args) => {
  try {
    return execFileSync("git", args, { cwd: ROOT_DIR, encoding: "utf8" }).trim();
  } catch {
    return "";
  }
};
const commit = git("rev-parse", "--short", "HEAD");
const dirty = git("status", "--porcelain", "--", "src", "bench") !== "";
const recorded = fs.existsSync(RECORD) ? JSON.parse(fs.readFileSync(RECORD, "utf8")) : undefined;

/** figures[scenario][contender] = instructions per request */
const figures = {};
for (const id of wanted) {
  const scenario = SCENARIOS[id];
  figures[id] = {};
  for (const contender of contenders) {
    const data = scenario.write ? copySqlite(pristine, path.join(TMP, `instructions-${contender.id}-${process.pid}.sqlite`)) : pristine;
    const next = scenario.source();
    const outFile = path.join(TMP, `callgrind-${id}-${contender.id}-${process.pid}.out`);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
    const measured = await countUnderCallgrind({
      // --keep: V8 writes the perf map that bench/callgrind-functions.mjs names the JIT code with.
      args: [...nodeFlags, ...(o.keep ? ["--perf-basic-prof"] : []), ...contender.args],
      cwd: BENCH_DIR,
      outFile,
      stderr: "pipe",
      label: contender.id,
      env: {
        ...process.env,
        NODE_ENV: "production",
        BENCH_DB: "sqlite",
        BENCH_SQLITE_PATH: data,
        BENCH_LOG: o.log ? "file" : "",
        BENCH_LOG_FILE: path.join(TMP, `instructions-${contender.id}-${process.pid}.log`),
        BENCH_ROUTES: "0",
        ...contender.env,
      },
      warm: (port) => load(port, agent, warmup, next, "warm", scenario.status),
      counted: (port) => load(port, agent, count, next, "count", scenario.status),
      windows,
      keep: o.keep,
      threads: "main",
    });
    agent.destroy();
    if (data !== pristine) for (const f of [data, `${data}-wal`, `${data}-shm`]) fs.rmSync(f, { force: true });
    const perWindow = measured.windows.map((w) => Math.round(w.instructions / count));
    const cheapest = perWindow.indexOf(Math.min(...perWindow));
    const perRequest = perWindow[cheapest];
    const background = measured.windows[cheapest].background;
    const collector = Math.round(measured.windows[cheapest].collector / count);
    figures[id][contender.id] = perRequest;
    const raw = figures[id].raw;
    const ratio = raw === undefined || contender.id === "raw" ? "" : ` (${(perRequest / raw).toFixed(3)} of raw)`;
    console.log(
      `${id} ${contender.label}: ${perRequest.toLocaleString("en")} instructions per request${ratio} (windows: ${perWindow.map((n) => n.toLocaleString("en")).join(", ")}; of which the garbage collector: ${collector.toLocaleString("en")}; background threads: ${Math.round(background / count).toLocaleString("en")})`,
    );
    // Compilers still at work in the counted window: the main thread's code was not yet the warm server's.
    if (background / count > perRequest / 20)
      console.log(
        `  warning: the background threads (V8's compilers) ran ${Math.round(background / count).toLocaleString("en")} instructions a request in the window: raise --warmup`,
      );
    if (o.keep)
      console.log(
        `  callgrind output kept: ${outFile}* (node bench/callgrind-functions.mjs ${outFile}.${cheapest + 1}-01 --count ${count})`,
      );
  }
}

const loadAverage = fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0];
const k = (n) => (n === undefined ? "" : `${(n / 1000).toFixed(1)}k`);
console.log(
  `\nNode ${process.version}, commit ${commit}${dirty ? " with changes" : ""}, the cheapest of ${windows} windows of ${count} requests after ${warmup}, load ${loadAverage}${o.log ? ", log writer on" : ""}${process.env.BENCH_METRICS === "1" ? ", metrics on" : ""}`,
);
console.log(
  `| scenario | ${contenders.map((c) => c.label).join(" | ")} | ${contenders
    .filter((c) => c.id !== "raw")
    .map((c) => `${c.label} / raw`)
    .join(" | ")} |`,
);
console.log(
  `|---|${contenders.map(() => "--:|").join("")}${contenders
    .filter((c) => c.id !== "raw")
    .map(() => "--:|")
    .join("")}`,
);
for (const id of wanted) {
  const f = figures[id];
  const ratios = contenders.filter((c) => c.id !== "raw").map((c) => (f.raw === undefined ? "" : (f[c.id] / f.raw).toFixed(3)));
  console.log(`| ${id} ${SCENARIOS[id].title} | ${contenders.map((c) => k(f[c.id])).join(" | ")} | ${ratios.join(" | ")} |`);
}

// Against the last recorded run: Tenon's ratio to raw (comparable across machines and loads), and its count.
if (recorded !== undefined && figures[wanted[0]].tenon !== undefined) {
  console.log(`\nTenon against the recorded run (${recorded.date}, commit ${recorded.commit}, Node ${recorded.node}):`);
  for (const id of wanted) {
    const now = figures[id];
    const then = recorded.scenarios?.[id];
    if (then?.tenon === undefined) continue;
    const ratioNow = now.raw === undefined ? undefined : now.tenon / now.raw;
    const ratioThen = then.raw === undefined ? undefined : then.tenon / then.raw;
    const change = ((now.tenon / then.tenon - 1) * 100).toFixed(1);
    console.log(
      `  ${id}: ${now.tenon.toLocaleString("en")} instructions (recorded ${then.tenon.toLocaleString("en")}, ${change.startsWith("-") ? "" : "+"}${change}%)` +
        (ratioNow === undefined || ratioThen === undefined
          ? ""
          : `; ratio to raw ${ratioNow.toFixed(3)} (recorded ${ratioThen.toFixed(3)})`),
    );
  }
}

if (o.record) {
  // Read again: a run of other scenarios may have recorded meanwhile, and its figures stay.
  const latest = fs.existsSync(RECORD) ? JSON.parse(fs.readFileSync(RECORD, "utf8")) : undefined;
  const scenarios = { ...(latest?.node === process.version ? latest.scenarios : {}) };
  for (const id of wanted) scenarios[id] = { ...scenarios[id], ...figures[id] };
  const record = {
    date: new Date().toISOString().slice(0, 10),
    commit: `${commit}${dirty ? "+changes" : ""}`,
    node: process.version,
    command: `node bench/instructions.mjs ${process.argv.slice(2).join(" ")}`.trim(),
    counts: { warmup, windows, count, connections: 10 },
    scenarios,
  };
  fs.writeFileSync(RECORD, `${JSON.stringify(record, null, 2)}\n`);
  console.log(`\nrecorded in ${path.relative(ROOT_DIR, RECORD)}`);
}
