// Scale-out measurement (issue 18): the demo's read and write scenarios served by one process and by two
// (WORKERS=2, node:cluster), on PostgreSQL and, with --engines pg,galera, on a Galera cluster through its
// HAProxy, measured in interleaved rounds of the same run, reported as ratios, with the servers' and the
// database's CPU per request and the database sessions they held.
//
//   npm run build && node bench/scaling.mjs [--engines pg,galera] [--rounds 3] [--seconds 5] [--connections 16] [--out scaling]
//
// PostgreSQL at TENON_BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test); Galera as
// `GALERA_STATE=<file> scripts/galera.sh up` left it (default /tmp/tenon-galera.json). Each gets a throwaway
// database, dropped at the end. Writes bench/results/<out>.json and .md.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { demoMain, keepaliveLoad, median, startDemoProcess } from "./lib/demo-runs.mjs";
import { galeraEngine, postgresEngine } from "./lib/scaling-engines.mjs";
import { cpuNs } from "./lib/server-process.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const rounds = Number(option("rounds", 3));
const seconds = Number(option("seconds", 5));
const connections = Number(option("connections", 16));
const out = option("out", "scaling");
const engineIds = option("engines", "pg").split(",");
const baseUrl = process.env.TENON_BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const secret = randomBytes(32).toString("base64url");

if (!fs.existsSync(demoMain)) throw new Error("Run `npm run build` first: dist/examples/demo/main.js is missing.");

let current; // the server running now, stopped on a signal
/** Starts a raw node:http server answering a constant JSON: the calibration of CPU per request on this machine. */
async function startRaw() {
  const code = `require("http").createServer((q,s)=>{s.setHeader("Content-Type","application/json");s.end('{"status":"ok"}')}).listen(0,"127.0.0.1",function(){console.log("PORT "+this.address().port)})`;
  const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  let text = "";
  child.stdout.on("data", (d) => (text += d));
  while (!/PORT (\d+)/.test(text)) await new Promise((r) => setTimeout(r, 20));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    port: Number(/PORT (\d+)/.exec(text)[1]),
    pids: [child.pid],
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Starts the demo (WORKERS unset, or a count) and resolves its port and the pids to measure. */
function startDemo(env, workers) {
  return startDemoProcess(
    { ...env, PORT: "0", JWT_SECRET: secret, WORKERS: workers === 1 ? "" : String(workers), DEMO_RESET: "" },
    workers,
  );
}

function load(port, requests) {
  return keepaliveLoad({ port, connections, seconds, requests });
}

async function token(port) {
  const res = await fetch(`http://127.0.0.1:${port}/api/logon`, {
    method: "POST",
    body: JSON.stringify({ username: "editor", password: "editor" }),
  });
  return (await res.json()).token;
}

async function idsOf(port, entity, auth) {
  const res = await fetch(`http://127.0.0.1:${port}/api/${entity}`, { headers: auth });
  return (await res.json()).data.map((row) => row.id);
}

const engines = [];
for (const id of engineIds) {
  if (id === "pg") engines.push(await postgresEngine(baseUrl));
  else if (id === "galera") engines.push(await galeraEngine(process.env.GALERA_STATE ?? path.join(os.tmpdir(), "tenon-galera.json")));
  else throw new Error(`unknown engine ${id}: pg or galera`);
}
const logFile = path.join(os.tmpdir(), `tenon-scaling-${process.pid}.log`);
const closeAll = async () => {
  for (const engine of engines) await engine.close();
  fs.rmSync(logFile, { force: true });
};
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, async () => {
    await current?.stop().catch(() => {});
    await closeAll();
    process.exit(1);
  });
}
const results = [];
const loadBefore = os.loadavg()[0];
const kinds = [
  {
    id: "read",
    what: "GET /api/companies/<id> and /api/employees/<id> by id (bearer token), over the seed rows' ids",
    requests: (auth, ids) => [
      ...ids.companies.slice(0, 4).map((id) => ({ method: "GET", path: `/api/companies/${id}`, headers: auth })),
      ...ids.employees.slice(0, 5).map((id) => ({ method: "GET", path: `/api/employees/${id}`, headers: auth })),
    ],
  },
  {
    id: "write",
    what: "POST /api/companies: insert with validation, audit columns and sequence",
    requests: (auth) => [
      { method: "POST", path: "/api/companies", headers: auth, bodyTemplate: '{"name":"Scaling {n}","creditLimit":"10.00"}' },
    ],
  },
];
const scenarios = [{ id: "raw", kind: "raw", engine: undefined, requests: () => [{ method: "GET", path: "/" }] }];
for (const engine of engines)
  for (const kind of kinds) scenarios.push({ id: `${engine.id} ${kind.id}`, kind: kind.id, engine, requests: kind.requests });
try {
  // Schema and seed rows once per engine.
  for (const engine of engines) {
    const demo = await startDemo({ DATABASE_URL: engine.url, LOG_FILE: logFile, DEMO_RESET: "1" }, 1);
    await demo.stop();
  }
  for (let round = 1; round <= rounds; round++) {
    for (const scenario of scenarios) {
      const engine = scenario.engine;
      for (const workers of engine === undefined ? [1] : round % 2 === 1 ? [1, 2] : [2, 1]) {
        const demo = engine === undefined ? await startRaw() : await startDemo({ DATABASE_URL: engine.url, LOG_FILE: logFile }, workers);
        current = demo;
        try {
          const auth = engine === undefined ? {} : { Authorization: `Bearer ${await token(demo.port)}` };
          // The seed rows' ids as the engine drew them (a Galera node's sequence steps by the cluster's size).
          const ids =
            engine === undefined
              ? {}
              : { companies: await idsOf(demo.port, "companies", auth), employees: await idsOf(demo.port, "employees", auth) };
          const requests = scenario.requests(auth, ids);
          await load(demo.port, requests); // warm-up, same length as the measure
          let peakConnections = 0;
          let busySum = 0;
          let samples = 0;
          let sampling = engine !== undefined;
          const sampler = (async () => {
            while (sampling) {
              const sessions = await engine.sessions();
              peakConnections = Math.max(peakConnections, sessions.total);
              busySum += sessions.busy;
              samples++;
              await new Promise((res) => setTimeout(res, 100));
            }
          })();
          // The database's side: its processes (PostgreSQL's backends of this database, the pool being full after
          // the warm-up; Galera's three servers).
          const backends = engine === undefined ? [] : await engine.processes();
          const dbBefore = backends.map(cpuNs);
          const cpuBefore = demo.pids.map(cpuNs);
          const measured = await load(demo.port, requests);
          const cpuAfter = demo.pids.map(cpuNs);
          const dbAfter = backends.map(cpuNs);
          const dbCpu = dbAfter.reduce((sum, after, i) => sum + (after === null || dbBefore[i] === null ? 0 : after - dbBefore[i]), 0);
          sampling = false;
          await sampler;
          const cpu = cpuAfter.reduce((sum, after, i) => sum + (after - cpuBefore[i]), 0);
          const ok = measured.statuses["200"] ?? 0;
          results.push({
            round,
            scenario: scenario.id,
            workers,
            rps: (ok / measured.durationMs) * 1000,
            answered: measured.answered,
            failed: measured.failed,
            statuses: measured.statuses,
            cpuUsPerRequest: cpu / 1000 / Math.max(1, measured.answered),
            dbCpuUsPerRequest: dbCpu / 1000 / Math.max(1, measured.answered),
            peakConnections,
            busyConnections: busySum / Math.max(1, samples),
          });
          const last = results.at(-1);
          console.log(
            `round ${round} ${scenario.id} ${workers} process(es): ${last.rps.toFixed(0)} req/s, ${last.cpuUsPerRequest.toFixed(0)} us CPU/request (database ${last.dbCpuUsPerRequest.toFixed(0)}), ${peakConnections} connections (${last.busyConnections.toFixed(1)} busy on average), statuses ${JSON.stringify(measured.statuses)}, ${measured.failed} failed`,
          );
        } finally {
          current = undefined;
          await demo.stop();
          // The next measure starts with no session of this one left on the database.
          for (let waited = 0; engine !== undefined && waited < 10000 && (await engine.sessions()).total > 0; waited += 100) {
            await new Promise((res) => setTimeout(res, 100));
          }
        }
      }
    }
  }
} finally {
  await closeAll();
}

const summary = [];
const rawCpu = median(results.filter((r) => r.scenario === "raw").map((r) => r.cpuUsPerRequest));
const rawRps = median(results.filter((r) => r.scenario === "raw").map((r) => r.rps));
for (const scenario of scenarios.filter((candidate) => candidate.engine !== undefined).map((candidate) => candidate.id)) {
  const pick = (workers, field) => median(results.filter((r) => r.scenario === scenario && r.workers === workers).map((r) => r[field]));
  const ratios = [];
  for (let round = 1; round <= rounds; round++) {
    const one = results.find((r) => r.round === round && r.scenario === scenario && r.workers === 1);
    const two = results.find((r) => r.round === round && r.scenario === scenario && r.workers === 2);
    ratios.push(two.rps / one.rps);
  }
  summary.push({
    scenario,
    rps1: pick(1, "rps"),
    rps2: pick(2, "rps"),
    ratio: median(ratios),
    cpu1: pick(1, "cpuUsPerRequest"),
    cpu2: pick(2, "cpuUsPerRequest"),
    connections1: pick(1, "peakConnections"),
    connections2: pick(2, "peakConnections"),
    db1: pick(1, "dbCpuUsPerRequest"),
    db2: pick(2, "dbCpuUsPerRequest"),
    busy1: pick(1, "busyConnections"),
    busy2: pick(2, "busyConnections"),
  });
}
const loadAfter = os.loadavg()[0];
const when = new Date().toISOString().slice(0, 16).replace("T", " ");
const machine = `${os.cpus().length} x ${os.cpus()[0]?.model ?? "CPU"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
const lines = [
  `# Scale-out: one process against two (WORKERS=2) on ${engines.map((engine) => engine.name).join(" and ")}`,
  "",
  `${when} UTC, ${machine}; \`node bench/scaling.mjs --engines ${engineIds.join(",")} --rounds ${rounds} --seconds ${seconds} --connections ${connections}\`. The load generator`,
  `(bench/lib/keepalive-load.mjs, ${connections} keep-alive connections) and PostgreSQL run on the same cores as the servers.`,
  `Medians of ${rounds} interleaved rounds; the ratio is the median of each round's two-process / one-process ratio.`,
  `CPU per request: the servers' own CPU time (primary and workers, user and kernel, from /proc) over the requests answered;`,
  `database CPU per request: the same for the PostgreSQL backends that served the database during the load (Galera: the`,
  `three mariadbd servers, replication included). Sessions: PostgreSQL's pg_stat_activity; Galera's processlists of all three nodes.`,
  `Connections: the most sessions the database showed during the load; busy: the mean number of them not idle, sampled`,
  `every 100 ms; busy / req/s is the time a request holds a connection.`,
  `Calibration in the same rounds: a raw node:http server answering a constant JSON served ${rawRps.toFixed(0)} req/s with ${rawCpu.toFixed(0)} us of CPU per request`,
  `under the same load generator; the last columns give the demo's CPU per request as a multiple of it.`,
  `Load average of the machine (1 min) at the start and the end of the run: ${loadBefore.toFixed(1)}, ${loadAfter.toFixed(1)} (other work shares it).`,
  "",
  "| scenario | 1 process req/s | 2 processes req/s | ratio | CPU us/request, 1 | CPU us/request, 2 | database CPU us/request, 1 | database CPU us/request, 2 | DB connections, 1 | DB connections, 2 | busy, 1 | busy, 2 | CPU / raw's, 1 | CPU / raw's, 2 |",
  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
  ...summary.map(
    (s) =>
      `| ${s.scenario} | ${s.rps1.toFixed(0)} | ${s.rps2.toFixed(0)} | ${s.ratio.toFixed(2)} | ${s.cpu1.toFixed(0)} | ${s.cpu2.toFixed(0)} | ${s.db1.toFixed(0)} | ${s.db2.toFixed(0)} | ${s.connections1} | ${s.connections2} | ${s.busy1.toFixed(1)} | ${s.busy2.toFixed(1)} | ${(s.cpu1 / rawCpu).toFixed(1)} | ${(s.cpu2 / rawCpu).toFixed(1)} |`,
  ),
  "",
];
fs.mkdirSync(path.join(here, "results"), { recursive: true });
fs.writeFileSync(
  path.join(here, "results", `${out}.json`),
  JSON.stringify({ when, machine, rawCpu, rawRps, loadBefore, loadAfter, rounds, seconds, connections, results, summary }, null, 2),
);
fs.writeFileSync(path.join(here, "results", `${out}.md`), lines.join("\n"));
console.log(lines.join("\n"));
