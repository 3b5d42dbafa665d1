// Streamed exports and NDJSON imports (docs/crud.md), measured on SQLite, PostgreSQL and MariaDB: the bench's
// Companies table with 10^6 rows exported as NDJSON and as CSV through `POST /api/companies/select` (the server's
// RSS growth during the export, its first byte, its whole time), a client that leaves after the first megabyte
// (what of the export is left on the database one second later), and 10^6 NDJSON lines imported through
// `POST /api/companies/bulk` (RSS growth, time, rows written). The server is its own process
// (bench/tenon-app/src/streaming-server.ts), started afresh for each export format and for the import, so that each
// RSS growth is that of the first large request of a warmed-up server (a second export finds the heap grown by the
// first); every figure is printed, none asserted, with the load average before and after.
//   node bench/streaming.mjs [--rows 1000000] [--engines sqlite,postgres,mariadb] [--import-rows 1000000]
// BENCH_STREAM_BATCH=<n> sets the rows the server reads and sends at a time (default 500); NODE_OPTIONS reaches the
// server too (NODE_OPTIONS=--max-semi-space-size=4 shows how much of the RSS growth is V8's young generation).
// Each engine's data lives in a database of the run's own (`tenon_stream_bench_<pid>`), dropped at the end.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { BENCH_DIR, CONTENDERS } from "./lib/contenders.mjs";
import { rssMiB, startServer } from "./lib/server-process.mjs";

const { values: o } = parseArgs({
  options: {
    rows: { type: "string", default: "1000000" },
    "import-rows": { type: "string", default: "1000000" },
    engines: { type: "string", default: "sqlite,postgres,mariadb" },
  },
});
const rows = Number(o.rows);
const importRows = Number(o["import-rows"]);
const PG_URL = process.env.BENCH_PG_URL || "postgres://postgres@127.0.0.1:5432/test";
const MARIADB_URL = process.env.BENCH_MARIADB_URL || "mariadb://root@127.0.0.1:3306/test";
const name = `tenon_stream_bench_${process.pid}`;
const TMP = path.join(BENCH_DIR, "results", "tmp");
fs.mkdirSync(TMP, { recursive: true });

/** Samples a process's RSS every 50 ms until `stop()`: answers the highest seen. */
function sampleRss(pid) {
  let peak = rssMiB(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssMiB(pid));
    } catch {
      /* the process ended */
    }
  }, 50);
  return () => {
    clearInterval(timer);
    return peak;
  };
}

const companyColumns = `ID, Name, Email, VatNumber, CreditLimit, CreatedAt, CreatedBy, VersionID`;

/** The engines: each makes its table of `rows` companies, tells the server how to reach it, counts what is left of an export, and drops it. */
const engines = {
  async sqlite() {
    const file = path.join(TMP, `${name}.sqlite`);
    for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
    const db = new Database(file);
    db.pragma("journal_mode = WAL");
    db.exec(`CREATE TABLE Companies (ID INTEGER PRIMARY KEY NOT NULL, Name VARCHAR(100) NOT NULL, Email VARCHAR(200), VatNumber VARCHAR(20),
      CreditLimit DOUBLE PRECISION, CreatedAt TIMESTAMP, CreatedBy VARCHAR(100), UpdatedAt TIMESTAMP, UpdatedBy VARCHAR(100),
      DeletedAt TIMESTAMP, DeletedBy VARCHAR(100), VersionID INTEGER NOT NULL DEFAULT 1)`);
    db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${rows})
      INSERT INTO Companies (${companyColumns}) SELECT i, 'Company ' || i, 'contact' || i || '@example.com', 'DE' || printf('%09d', i),
      (i % 1000) * 100, '2024-01-01T00:00:00.000Z', 'seed', 1 FROM n`);
    db.pragma("wal_checkpoint(TRUNCATE)");
    db.pragma("busy_timeout = 0");
    // A frame in the write-ahead log before any export starts, so that an export's snapshot pins it (see held).
    db.prepare("UPDATE Companies SET VersionID = VersionID + 1 WHERE ID = 1").run();
    return {
      env: { BENCH_DB: "sqlite", BENCH_SQLITE_PATH: file },
      // A reader that holds an older snapshot keeps a TRUNCATE checkpoint from finishing: busy 1.
      async held() {
        db.prepare("UPDATE Companies SET VersionID = VersionID + 1 WHERE ID = 1").run();
        return db.prepare("PRAGMA wal_checkpoint(TRUNCATE)").raw(true).get()[0];
      },
      async count() {
        return db.prepare("SELECT COUNT(*) FROM Companies").raw(true).get()[0];
      },
      async close() {
        db.close();
        for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
      },
    };
  },
  async postgres() {
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`CREATE SCHEMA ${name}`);
    await client.query(`SET search_path = ${name}`);
    await client.query(`CREATE TABLE companies (id integer PRIMARY KEY, name varchar(100) NOT NULL, email varchar(200), vatnumber varchar(20),
      creditlimit double precision, createdat timestamptz, createdby varchar(100), updatedat timestamptz, updatedby varchar(100),
      deletedat timestamptz, deletedby varchar(100), versionid integer NOT NULL DEFAULT 1)`);
    await client.query(`INSERT INTO companies (${companyColumns.toLowerCase()}) SELECT i, 'Company ' || i, 'contact' || i || '@example.com',
      'DE' || lpad(i::text, 9, '0'), (i % 1000) * 100, '2024-01-01T00:00:00Z', 'seed', 1 FROM generate_series(1, ${rows}) i`);
    await client.query(`CREATE SEQUENCE companies_seq START ${rows + 1}`);
    await client.query("ANALYZE companies");
    return {
      env: { BENCH_DB: "postgres", BENCH_PG_URL: PG_URL, BENCH_PG_SCHEMA: name },
      async held() {
        const r = await client.query(
          // The server's sessions (application name tenon) that are not idle and lock a table of the run's schema.
          "SELECT count(*)::int AS n FROM pg_stat_activity a WHERE a.application_name = 'tenon' AND a.state <> 'idle' AND a.pid <> pg_backend_pid() AND EXISTS (SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation JOIN pg_namespace s ON s.oid = c.relnamespace WHERE l.pid = a.pid AND s.nspname = $1)",
          [name],
        );
        return r.rows[0].n;
      },
      async count() {
        return Number((await client.query("SELECT count(*) AS n FROM companies")).rows[0].n);
      },
      async close() {
        await client.query(`DROP SCHEMA ${name} CASCADE`);
        await client.end();
      },
    };
  },
  async mariadb() {
    const { default: mariadb } = await import("mariadb");
    const url = new URL(MARIADB_URL);
    const admin = await mariadb.createConnection({
      host: url.hostname,
      port: Number(url.port || 3306),
      user: decodeURIComponent(url.username),
    });
    await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
    await admin.query(`USE ${name}`);
    await admin.query(`CREATE TABLE Companies (ID INT PRIMARY KEY NOT NULL, Name VARCHAR(100) NOT NULL, Email VARCHAR(200), VatNumber VARCHAR(20),
      CreditLimit DOUBLE, CreatedAt DATETIME(3), CreatedBy VARCHAR(100), UpdatedAt DATETIME(3), UpdatedBy VARCHAR(100),
      DeletedAt DATETIME(3), DeletedBy VARCHAR(100), VersionID INT NOT NULL DEFAULT 1)`);
    await admin.query(`INSERT INTO Companies (${companyColumns}) SELECT seq, CONCAT('Company ', seq), CONCAT('contact', seq, '@example.com'),
      CONCAT('DE', LPAD(seq, 9, '0')), (seq % 1000) * 100, '2024-01-01 00:00:00', 'seed', 1 FROM seq_1_to_${rows}`);
    await admin.query(`CREATE SEQUENCE companies_seq START WITH ${rows + 1}`);
    const target = new URL(MARIADB_URL);
    target.pathname = `/${name}`;
    return {
      env: { BENCH_DB: "mariadb", BENCH_MARIADB_URL: target.href },
      async held() {
        const [row] = await admin.query(
          "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST p WHERE p.DB = ? AND p.ID <> CONNECTION_ID() AND (p.COMMAND = 'Query' OR EXISTS (SELECT 1 FROM information_schema.INNODB_TRX t WHERE t.trx_mysql_thread_id = p.ID))",
          [name],
        );
        return Number(row.n);
      },
      async count() {
        return Number((await admin.query("SELECT COUNT(*) AS n FROM Companies"))[0].n);
      },
      async close() {
        await admin.query(`DROP DATABASE ${name}`);
        await admin.end();
      },
    };
  },
};

/** One export: time to the first body byte, the whole time, bytes, lines, and the server's RSS growth. */
function exportOnce(server, accept, body = "{}") {
  return new Promise((resolve, reject) => {
    const before = rssMiB(server.pid);
    const peak = sampleRss(server.pid);
    const t0 = performance.now();
    let first;
    let bytes = 0;
    let lines = 0;
    const req = http.request(
      {
        host: "127.0.0.1",
        port: server.port,
        path: "/api/companies/select",
        method: "POST",
        agent: false,
        headers: { accept, "content-type": "application/json" },
      },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`export answered ${res.statusCode}`));
        res.on("data", (chunk) => {
          first ??= performance.now() - t0;
          bytes += chunk.length;
          for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
        });
        res.on("end", () =>
          resolve({
            firstByteMs: first,
            totalMs: performance.now() - t0,
            bytes,
            lines,
            complete: res.complete,
            rssBefore: before,
            rssGrowth: peak() - before,
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** A client that reads the first megabyte of an export and leaves: what is held on the database one second later. */
function leaveAfterOneMegabyte(server, held) {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port: server.port,
        path: "/api/companies/select",
        method: "POST",
        agent: false,
        headers: { accept: "application/x-ndjson", "content-type": "application/json" },
      },
      (res) => {
        let bytes = 0;
        res.on("data", async (chunk) => {
          bytes += chunk.length;
          if (bytes < 1048576 || req.destroyed) return;
          res.pause();
          const during = await held();
          req.destroy();
          await new Promise((r) => setTimeout(r, 1000));
          resolve({ heldWhileReading: during, heldOneSecondLater: await held() });
        });
      },
    );
    // The client destroys its own request: that error is the leaving, not a failure.
    req.on("error", () => {});
    req.end("{}");
  });
}

/** Imports `count` generated NDJSON lines (produced as the server takes them): time, the server's RSS growth, the answer. */
function importLines(server, count) {
  return new Promise((resolve, reject) => {
    const before = rssMiB(server.pid);
    const peak = sampleRss(server.pid);
    const t0 = performance.now();
    let line = 0;
    const body = new Readable({
      read() {
        let text = "";
        for (let i = 0; i < 1000 && line < count; i++, line++)
          text += `{"name":"Imported ${line}","email":"imported${line}@example.com","creditLimit":${line % 1000}}\n`;
        this.push(text === "" ? null : text);
      },
    });
    const req = http.request(
      {
        host: "127.0.0.1",
        port: server.port,
        path: "/api/companies/bulk",
        method: "POST",
        agent: false,
        headers: { "content-type": "application/x-ndjson" },
      },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode,
            answer: Buffer.concat(chunks).toString(),
            totalMs: performance.now() - t0,
            rssBefore: before,
            rssGrowth: peak() - before,
          }),
        );
      },
    );
    req.on("error", reject);
    body.pipe(req);
  });
}

const tenon = CONTENDERS.find((c) => c.id === "tenon");
tenon.prepare();
const mib = (value) => `${value.toFixed(1)} MiB`;
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");
const loadBefore = load();
const results = [];

/** Runs `work` against a server of its own on `engine`, warmed up by a small export. */
async function withServer(engine, work) {
  const server = await startServer({
    args: ["tenon-app/dist/streaming-server.js"],
    cwd: BENCH_DIR,
    // BENCH_STREAM_BATCH (the rows read and sent at a time) reaches the server with the rest of the environment.
    env: engine.env,
    readyPath: "/api/companies/metadata",
  });
  try {
    // A first small export warms the server (its code, its pool) so that growth is the export's own.
    await exportOnce(server, "application/x-ndjson", '{"limit": 1000}');
    return await work(server);
  } finally {
    await server.stop();
  }
}

for (const engineName of o.engines.split(",")) {
  process.stderr.write(`${engineName}: building ${rows} rows...\n`);
  const engine = await engines[engineName]();
  try {
    for (const [label, accept] of [
      ["NDJSON", "application/x-ndjson"],
      ["CSV", "text/csv"],
    ]) {
      const r = await withServer(engine, (server) => exportOnce(server, accept));
      results.push({ engine: engineName, what: `export ${label}`, ...r });
      process.stderr.write(
        `${engineName} export ${label}: ${r.lines} lines, ${(r.bytes / 1048576).toFixed(0)} MiB in ${(r.totalMs / 1000).toFixed(1)} s (${Math.round((rows / r.totalMs) * 1000)} rows/s), first byte ${r.firstByteMs.toFixed(0)} ms, RSS ${mib(r.rssBefore)} + ${mib(r.rssGrowth)}\n`,
      );
    }
    await withServer(engine, async (server) => {
      const left = await leaveAfterOneMegabyte(server, engine.held);
      results.push({ engine: engineName, what: "client leaves after 1 MiB", ...left });
      process.stderr.write(`${engineName} client leaves after 1 MiB: ${JSON.stringify(left)}\n`);
    });
    if (importRows > 0) {
      const before = await engine.count();
      const r = await withServer(engine, (server) => importLines(server, importRows));
      const written = (await engine.count()) - before;
      results.push({ engine: engineName, what: `import ${importRows} NDJSON lines`, ...r, written });
      process.stderr.write(
        `${engineName} import: ${r.status} ${r.answer.slice(0, 80)} in ${(r.totalMs / 1000).toFixed(1)} s, ${written} rows written, RSS ${mib(r.rssBefore)} + ${mib(r.rssGrowth)}\n`,
      );
    }
  } finally {
    await engine.close();
  }
}

console.log(`\nload average before: ${loadBefore}; after: ${load()} (${os.cpus().length} CPUs)`);
console.log("\n| engine | what | first byte | time | rows/s | size | server RSS growth | note |");
console.log("|---|---|---|---|---|---|---|---|");
for (const r of results) {
  if (r.what.startsWith("export"))
    console.log(
      `| ${r.engine} | ${r.what} | ${r.firstByteMs.toFixed(0)} ms | ${(r.totalMs / 1000).toFixed(1)} s | ${Math.round((rows / r.totalMs) * 1000)} | ${(r.bytes / 1048576).toFixed(0)} MiB, ${r.lines} lines | ${mib(r.rssGrowth)} | ${r.complete ? "complete" : "INCOMPLETE"} |`,
    );
  else if (r.what.startsWith("import"))
    console.log(
      `| ${r.engine} | ${r.what} | | ${(r.totalMs / 1000).toFixed(1)} s | ${Math.round((importRows / r.totalMs) * 1000)} | ${r.written} rows | ${mib(r.rssGrowth)} | ${r.status} ${r.answer.slice(0, 40)} |`,
    );
  else
    console.log(
      `| ${r.engine} | ${r.what} | | | | | | held while reading ${r.heldWhileReading}, one second after leaving ${r.heldOneSecondLater} |`,
    );
}
