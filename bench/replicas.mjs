// Read replicas (issue 34): the demo's read and write scenarios on a Patroni cluster of three PostgreSQL nodes,
// served with 0 replicas (DATABASE_URL names the primary alone: every read there) and with 2 (every node, reads
// of sessions that have not written on the replicas, each write answering a consistency token), in interleaved
// rounds of one run, reported as ratios, with the demo's CPU per request and each PostgreSQL node's.
//
//   npm run build && node bench/replicas.mjs [--rounds 3] [--seconds 5] [--connections 16] [--workers 2] [--out replicas]
//
// Starts its own cluster (test/support/patroni-cluster.ts: needs root, patroni, etcd-server), stops it at the
// end. Writes bench/results/<out>.json and .md (ignored by git).
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { demoMain, keepaliveLoad, median, startDemoProcess } from "./lib/demo-runs.mjs";
import { cpuNs } from "./lib/server-process.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");
const clusterModule = path.join(root, "dist", "test", "support", "patroni-cluster.js");
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const rounds = Number(option("rounds", 3));
const seconds = Number(option("seconds", 5));
const connections = Number(option("connections", 16));
const workers = Number(option("workers", 2));
const out = option("out", "replicas");
const secret = randomBytes(32).toString("base64url");
if (!fs.existsSync(demoMain) || !fs.existsSync(clusterModule)) throw new Error("Run `npm run build` first.");
const { patroniUnavailable, startPatroniCluster } = await import(clusterModule);
const unavailable = patroniUnavailable();
if (unavailable !== undefined) throw new Error(`No Patroni cluster here: ${unavailable}.`);

/** Starts the demo on `url` (WORKERS as asked) and resolves its port and the pids whose CPU is the server's. */
function startDemo(url, env = {}) {
  const settings = {
    ...env,
    DATABASE_URL: url,
    PORT: "0",
    JWT_SECRET: secret,
    WORKERS: workers > 1 ? String(workers) : "",
    LOG_FILE: logFile,
  };
  return startDemoProcess(settings, workers);
}

function load(port, requests) {
  return keepaliveLoad({ port, connections, seconds, requests });
}

/** The PostgreSQL processes of node `index` serving the database (its backends), read on that node. */
async function backendsOf(cluster, index, database) {
  const rows = await cluster.query(index, "SELECT pid FROM pg_stat_activity WHERE datname = $1", [database]);
  return rows.map((row) => Number(row.pid));
}

const logFile = path.join(os.tmpdir(), `tenon-replicas-${process.pid}.log`);
const cluster = await startPatroniCluster({ synchronousMode: true, synchronousNodeCount: 1, synchronousCommit: "on" });
const results = [];
const inProcess = [];
const gets = 2000;
const loadBefore = os.loadavg()[0];
try {
  const scratch = await cluster.scratch("tenon_bench_replicas");
  const leader = await cluster.leader();
  const setups = [
    { id: "0 replicas", url: cluster.nodeUrl(leader, scratch.name) },
    { id: "2 replicas", url: cluster.url(scratch.name, { replicaReads: "true" }) },
  ];
  const kinds = [
    {
      id: "read",
      requests: (auth, ids) => [
        ...ids.companies.slice(0, 4).map((id) => ({ method: "GET", path: `/api/companies/${id}`, headers: auth })),
        ...ids.employees.slice(0, 5).map((id) => ({ method: "GET", path: `/api/employees/${id}`, headers: auth })),
      ],
    },
    {
      id: "write",
      requests: (auth) => [
        { method: "POST", path: "/api/companies", headers: auth, bodyTemplate: '{"name":"Replicas {n}","creditLimit":"10.00"}' },
      ],
    },
  ];
  const seed = await startDemo(setups[0].url, { DEMO_RESET: "1" });
  await seed.stop();
  // Both replicas serve the database once they have replayed its creation and seed rows.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  for (let round = 1; round <= rounds; round++) {
    for (const kind of kinds) {
      for (const setup of round % 2 === 1 ? setups : [...setups].reverse()) {
        const demo = await startDemo(setup.url);
        try {
          const auth = {
            Authorization: `Bearer ${(await (await fetch(`http://127.0.0.1:${demo.port}/api/logon`, { method: "POST", body: JSON.stringify({ username: "editor", password: "editor" }) })).json()).token}`,
          };
          const idsOf = async (entity) =>
            (await (await fetch(`http://127.0.0.1:${demo.port}/api/${entity}`, { headers: auth })).json()).data.map((row) => row.id);
          const requests = kind.requests(auth, { companies: await idsOf("companies"), employees: await idsOf("employees") });
          await load(demo.port, requests); // warm-up: the pools fill, the replicas join the rotation
          const backends = await Promise.all([0, 1, 2].map((index) => backendsOf(cluster, index, scratch.name)));
          const dbBefore = backends.map((pids) => pids.map(cpuNs));
          const cpuBefore = demo.pids.map(cpuNs);
          const measured = await load(demo.port, requests);
          const cpu = demo.pids.map(cpuNs).reduce((sum, after, i) => sum + (after - cpuBefore[i]), 0);
          const nodeCpu = backends.map((pids, index) =>
            pids
              .map(cpuNs)
              .reduce((sum, after, i) => sum + (after === null || dbBefore[index][i] === null ? 0 : after - dbBefore[index][i]), 0),
          );
          const answered = Math.max(1, measured.answered);
          const ok = measured.statuses["200"] ?? 0;
          results.push({
            round,
            kind: kind.id,
            setup: setup.id,
            rps: (ok / measured.durationMs) * 1000,
            statuses: measured.statuses,
            failed: measured.failed,
            cpuUsPerRequest: cpu / 1000 / answered,
            primaryUsPerRequest: nodeCpu[leader] / 1000 / answered,
            replicasUsPerRequest: nodeCpu.reduce((sum, each, index) => (index === leader ? sum : sum + each), 0) / 1000 / answered,
          });
          const last = results.at(-1);
          console.log(
            `round ${round} ${kind.id} ${setup.id}: ${last.rps.toFixed(0)} req/s, server ${last.cpuUsPerRequest.toFixed(0)} us CPU/request, primary ${last.primaryUsPerRequest.toFixed(0)} us, replicas ${last.replicasUsPerRequest.toFixed(0)} us, statuses ${JSON.stringify(measured.statuses)}, ${measured.failed} failed`,
          );
        } finally {
          await demo.stop();
        }
      }
    }
  }
  // In one process, without HTTP: what routing costs a session's read by id (a fresh Context, get, dispose,
  // in sequence), against one host: the same server with several hosts named but replica reads off, and on.
  const { Context } = await import(path.join(root, "dist", "src", "index.js"));
  const { PostgresDatabase } = await import(path.join(root, "dist", "src", "engines", "postgres", "index.js"));
  const { Company } = await import(path.join(root, "dist", "examples", "demo", "entities.js"));
  const [first] = await scratch.rows("SELECT MIN(ID) AS id FROM Companies");
  const databases = [
    { id: "one host", database: new PostgresDatabase({ connectionString: cluster.nodeUrl(leader, scratch.name) }) },
    { id: "three hosts, replica reads off", database: new PostgresDatabase({ connectionString: cluster.url(scratch.name) }) },
    {
      id: "three hosts, replica reads on",
      database: new PostgresDatabase({ connectionString: cluster.url(scratch.name), replicaReads: true }),
    },
  ];
  for (let round = 1; round <= rounds; round++) {
    for (const { id, database } of round % 2 === 1 ? databases : [...databases].reverse()) {
      const readOnce = async () => {
        const context = new Context(database);
        context.unscoped = true;
        try {
          await context.get(Company, Number(first.id));
        } finally {
          await context.dispose();
        }
      };
      for (let i = 0; i < 200; i++) await readOnce(); // warm-up
      const cpuBefore = process.cpuUsage();
      const began = performance.now();
      for (let i = 0; i < gets; i++) await readOnce();
      const wall = performance.now() - began;
      const cpu = process.cpuUsage(cpuBefore);
      inProcess.push({ round, setup: id, cpuUsPerGet: (cpu.user + cpu.system) / gets, wallUsPerGet: (wall * 1000) / gets });
      const last = inProcess.at(-1);
      console.log(
        `round ${round} in-process get, ${id}: ${last.cpuUsPerGet.toFixed(1)} us CPU, ${last.wallUsPerGet.toFixed(0)} us wall per get`,
      );
    }
  }
  for (const { database } of databases) await database.close();
  await scratch.close();
} finally {
  await cluster.stop();
  fs.rmSync(logFile, { force: true });
}

const loadAfter = os.loadavg()[0];
const summary = [];
for (const kind of ["read", "write"]) {
  const pick = (setup, field) => median(results.filter((r) => r.kind === kind && r.setup === setup).map((r) => r[field]));
  const ratios = [];
  for (let round = 1; round <= rounds; round++) {
    const none = results.find((r) => r.round === round && r.kind === kind && r.setup === "0 replicas");
    const two = results.find((r) => r.round === round && r.kind === kind && r.setup === "2 replicas");
    ratios.push(two.rps / none.rps);
  }
  summary.push({
    kind,
    rps0: pick("0 replicas", "rps"),
    rps2: pick("2 replicas", "rps"),
    ratio: median(ratios),
    cpu0: pick("0 replicas", "cpuUsPerRequest"),
    cpu2: pick("2 replicas", "cpuUsPerRequest"),
    primary0: pick("0 replicas", "primaryUsPerRequest"),
    primary2: pick("2 replicas", "primaryUsPerRequest"),
    replicas2: pick("2 replicas", "replicasUsPerRequest"),
  });
}
const single = median(inProcess.filter((r) => r.setup === "one host").map((r) => r.cpuUsPerGet));
const routing = ["one host", "three hosts, replica reads off", "three hosts, replica reads on"].map((setup) => {
  const cpu = median(inProcess.filter((r) => r.setup === setup).map((r) => r.cpuUsPerGet));
  const wall = median(inProcess.filter((r) => r.setup === setup).map((r) => r.wallUsPerGet));
  return { setup, cpu, wall, ratio: cpu / single };
});
const when = new Date().toISOString().slice(0, 16).replace("T", " ");
const machine = `${os.cpus().length} x ${os.cpus()[0]?.model ?? "CPU"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
const lines = [
  "# Read replicas: 0 against 2 on a Patroni cluster",
  "",
  `${when} UTC, ${machine}; \`node bench/replicas.mjs --rounds ${rounds} --seconds ${seconds} --connections ${connections} --workers ${workers}\`.`,
  `The demo (WORKERS=${workers}) on a Patroni cluster of three PostgreSQL 15 nodes (synchronous_mode, synchronous_commit on), its`,
  "DATABASE_URL naming the primary alone (0 replicas) or every node with replicaReads=true (2 replicas: each write also reads",
  `its consistency token). Load: bench/lib/keepalive-load.mjs, ${connections} keep-alive connections, ${seconds} s per measure after a`,
  `warm-up of the same length. Medians of ${rounds} interleaved rounds; the ratio is the median of each round's 2-replica / 0-replica`,
  "ratio. CPU per request: the demo's processes; the primary's and the replicas' PostgreSQL backends of the database.",
  `Load average (1 min) at the start and the end: ${loadBefore.toFixed(1)}, ${loadAfter.toFixed(1)}. Every process shares the same cores.`,
  "",
  "| scenario | 0 replicas req/s | 2 replicas req/s | ratio | server CPU us/request, 0 and 2 | primary CPU us/request, 0 and 2 | replicas' CPU us/request, 2 |",
  "|---|---|---|---|---|---|---|",
  ...summary.map(
    (s) =>
      `| ${s.kind} | ${s.rps0.toFixed(0)} | ${s.rps2.toFixed(0)} | ${s.ratio.toFixed(2)} | ${s.cpu0.toFixed(0)}, ${s.cpu2.toFixed(0)} | ${s.primary0.toFixed(0)}, ${s.primary2.toFixed(0)} | ${s.replicas2.toFixed(0)} |`,
  ),
  "",
  `In one process, without HTTP: a fresh Context, \`get(Company, id)\`, dispose, ${gets} times in sequence after 200 of warm-up, medians of`,
  `${rounds} interleaved rounds; CPU of the Node process (user and system) per get, and its ratio to one host.`,
  "",
  "| database | CPU us/get | wall us/get | CPU / one host's |",
  "|---|---|---|---|",
  ...routing.map((r) => `| ${r.setup} | ${r.cpu.toFixed(1)} | ${r.wall.toFixed(0)} | ${r.ratio.toFixed(2)} |`),
  "",
];
fs.mkdirSync(path.join(here, "results"), { recursive: true });
fs.writeFileSync(
  path.join(here, "results", `${out}.json`),
  JSON.stringify({ when, machine, loadBefore, loadAfter, results, summary, inProcess, routing }, null, 2),
);
fs.writeFileSync(path.join(here, "results", `${out}.md`), lines.join("\n"));
console.log(lines.join("\n"));
