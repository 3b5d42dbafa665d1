// The delay from commit to delivery of the change stream (docs/changes.md) on loopback: Tenon's contender (one
// process) on a SQLite copy of the bench data, or on an empty Companies table in a throwaway PostgreSQL schema
// (`--db postgres`: the process also LISTENs) or MariaDB database (`--db mariadb`), `--streams` open change streams
// of FeedCompany, and `--writes` inserts sent one after another (`--gap` ms apart). For each insert and each stream,
// the delay is measured from the moment the insert's answer arrived (the commit is done by then: a negative delay is
// an event that arrived before the answer) and from the moment the insert was sent. Prints the median and the 99th
// percentile of both, how many events arrived of those expected (each stream must get every insert once), and the
// server's CPU time per insert (its answer and the fan-out to every stream: less moved by load than the delays).
//   node bench/change-delivery.mjs [--db sqlite|postgres|mariadb] [--streams 1000] [--writes 200] [--gap 20] [--profile dir]
// `npm run build` first. Timing, not instructions: run it on a quiet machine and compare runs of the same day.
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";
import { BENCH_DIR, CONTENDERS } from "./lib/contenders.mjs";
import { copySqlite, PG_URL, sqliteDataset } from "./lib/dataset.mjs";

const { values: o } = parseArgs({
  options: {
    db: { type: "string", default: "sqlite" },
    streams: { type: "string", default: "1000" },
    writes: { type: "string", default: "200" },
    gap: { type: "string", default: "20" },
    // A directory for the server's CPU profile (node --cpu-prof), to see where the delivery's time goes.
    profile: { type: "string" },
  },
});
const streams = Number(o.streams);
const writes = Number(o.writes);

const MARIADB_URL = "mariadb://root@127.0.0.1:3306";
const scratch = `tenon_delivery_${process.pid}`;

/** The database of the run, as the bench app's environment names it, and how to remove it afterwards. */
async function openEngine(db) {
  if (db === "postgres") {
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`CREATE SCHEMA ${scratch}`);
    await client.query(`CREATE TABLE ${scratch}.companies (
      id integer PRIMARY KEY, name varchar(100) NOT NULL, email varchar(200), vatnumber varchar(20),
      creditlimit double precision, createdat timestamptz, createdby varchar(100), updatedat timestamptz,
      updatedby varchar(100), deletedat timestamptz, deletedby varchar(100), versionid integer NOT NULL DEFAULT 1)`);
    await client.query(`CREATE SEQUENCE ${scratch}.companies_seq`);
    return {
      env: { BENCH_DB: "postgres", BENCH_PG_URL: PG_URL, BENCH_PG_SCHEMA: scratch },
      async remove() {
        await client.query(`DROP SCHEMA IF EXISTS ${scratch} CASCADE`);
        await client.end();
      },
    };
  }
  if (db === "mariadb") {
    const { default: mariadb } = await import("mariadb");
    const connection = await mariadb.createConnection({ host: "127.0.0.1", port: 3306, user: "root" });
    await connection.query(`CREATE DATABASE ${scratch} CHARACTER SET utf8mb4`);
    await connection.query(`CREATE TABLE ${scratch}.Companies (
      ID int PRIMARY KEY, Name varchar(100) NOT NULL, Email varchar(200), VatNumber varchar(20), CreditLimit double,
      CreatedAt datetime(3), CreatedBy varchar(100), UpdatedAt datetime(3), UpdatedBy varchar(100), DeletedAt datetime(3),
      DeletedBy varchar(100), VersionID int NOT NULL DEFAULT 1)`);
    await connection.query(`CREATE SEQUENCE ${scratch}.companies_seq`);
    return {
      env: { BENCH_DB: "mariadb", BENCH_MARIADB_URL: `${MARIADB_URL}/${scratch}` },
      async remove() {
        await connection.query(`DROP DATABASE IF EXISTS ${scratch}`);
        await connection.end();
      },
    };
  }
  const TMP = path.join(BENCH_DIR, "results", "tmp");
  fs.mkdirSync(TMP, { recursive: true });
  const data = copySqlite(sqliteDataset(TMP, 10000), path.join(TMP, `delivery-${process.pid}.sqlite`));
  return {
    env: { BENCH_DB: "sqlite", BENCH_SQLITE_PATH: data },
    async remove() {
      for (const file of [data, `${data}-wal`, `${data}-shm`]) fs.rmSync(file, { force: true });
    },
  };
}

const engine = await openEngine(o.db);
const tenon = CONTENDERS.find((c) => c.id === "tenon");
fs.mkdirSync(path.join(BENCH_DIR, "node_modules"), { recursive: true });
tenon.prepare();

const profile = o.profile === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${path.resolve(o.profile)}`];
const server = spawn(process.execPath, [...profile, ...tenon.args], {
  cwd: BENCH_DIR,
  env: {
    ...process.env,
    NODE_ENV: "production",
    ...engine.env,
    BENCH_CHANGE_FEED: "1",
    BENCH_CHANGE_STREAM: "1",
  },
  stdio: ["ignore", "pipe", "inherit"],
});
const port = await new Promise((resolve, reject) => {
  let text = "";
  server.stdout.on("data", (chunk) => {
    text += chunk;
    const match = /LISTENING (\d+)/.exec(text);
    if (match !== null) resolve(Number(match[1]));
  });
  server.once("exit", (code) => reject(new Error(`the server exited with ${code}`)));
});

const keyPattern = /^data: \{"entity":"[^"]*","key":(\d+)/m;
/** Arrival times by key, per stream. */
const arrivals = Array.from({ length: streams }, () => new Map());
const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
const requests = [];
let open = 0;
await new Promise((resolve, reject) => {
  for (let i = 0; i < streams; i++) {
    const req = http.get({ host: "127.0.0.1", port, path: "/api/feed-companies/changes", agent }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`stream answered ${res.statusCode}`));
      res.setEncoding("utf8");
      let buffer = "";
      let counted = false;
      res.on("data", (chunk) => {
        const now = performance.now();
        buffer += chunk;
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (!counted && block.includes(": changes")) {
            counted = true;
            if (++open === streams) resolve();
          }
          // The record's key is its second member (`{"entity":...,"key":N,...}`): no JSON parse on the client's side.
          const key = keyPattern.exec(block);
          if (key !== null) arrivals[i].set(Number(key[1]), now);
        }
      });
    });
    req.on("error", reject);
    requests.push(req);
  }
});

/** The CPU time the server process has used, in milliseconds (user and system, from /proc; Linux only). */
const ticksPerMs = 100 / 1000; // USER_HZ
const serverCpuMs = () => {
  const fields = fs.readFileSync(`/proc/${server.pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / ticksPerMs;
};
const cpuBefore = serverCpuMs();
const sent = [];
for (let i = 0; i < writes; i++) {
  const started = performance.now();
  const response = await fetch(`http://127.0.0.1:${port}/api/companies`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: `Delivered ${i}` }),
  });
  const answered = performance.now();
  const { id } = await response.json();
  sent.push({ id, started, answered });
  await new Promise((resolve) => setTimeout(resolve, Number(o.gap)));
}
// Everything expected, or 10 s after the last insert.
const deadline = performance.now() + 10_000;
const expected = streams * writes;
const received = () => arrivals.reduce((sum, map) => sum + map.size, 0);
while (received() < expected && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
// What the server spent per insert: its own work and the fan-out to every stream (a figure that load moves less).
const cpuPerInsert = (serverCpuMs() - cpuBefore) / writes;

const fromAnswer = [];
const fromSend = [];
for (const write of sent) {
  for (const map of arrivals) {
    const at = map.get(write.id);
    if (at === undefined) continue;
    fromAnswer.push(at - write.answered);
    fromSend.push(at - write.started);
  }
}
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
for (const req of requests) req.destroy();
agent.destroy();
server.kill("SIGTERM");
await new Promise((resolve) => server.once("exit", resolve));
await engine.remove();
const loadAverage = fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0];
console.log(
  `${o.db}, ${streams} streams, ${writes} inserts: ${received()} of ${expected} events; delay after the insert's answer median ` +
    `${percentile(fromAnswer, 50).toFixed(1)} ms, p99 ${percentile(fromAnswer, 99).toFixed(1)} ms; after its request ` +
    `median ${percentile(fromSend, 50).toFixed(1)} ms, p99 ${percentile(fromSend, 99).toFixed(1)} ms; server CPU ` +
    `${cpuPerInsert.toFixed(1)} ms per insert (load ${loadAverage})`,
);
