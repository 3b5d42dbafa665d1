// Keyset pages against offset pages on a table of 10^6 rows (issue 20): the Tenon bench server (tenon-app)
// serves POST /api/companies/select over the shared Companies data set, and this script times page 1 and
// page 1,000 of a walk by `after` (the `nextCursor` of the page before) and by `start`, ordered by an indexed
// column (name, the key breaking ties) and by the key alone. A keyset page seeks to its first row through
// the index, so page 1,000 should cost what page 1 costs; an offset page reads and drops every row before it.
//   node bench/keyset-pages.mjs [--rows 1000000] [--limit 20] [--page 1000] [--repeat 30]
// The data set is built once per row count in bench/results/tmp (about a minute for 10^6 rows).
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { BENCH_DIR, CONTENDERS } from "./lib/contenders.mjs";
import { sqliteDataset } from "./lib/dataset.mjs";
import { startServer } from "./lib/server-process.mjs";

const { values: o } = parseArgs({
  options: {
    rows: { type: "string", default: "1000000" },
    limit: { type: "string", default: "20" },
    page: { type: "string", default: "1000" },
    repeat: { type: "string", default: "30" },
  },
});
const rows = Number(o.rows);
const limit = Number(o.limit);
const target = Number(o.page);
const repeat = Number(o.repeat);

const TMP = path.join(BENCH_DIR, "results", "tmp");
fs.mkdirSync(TMP, { recursive: true });
const built = performance.now();
const file = sqliteDataset(TMP, rows);
process.stderr.write(`data set: ${file} (${((performance.now() - built) / 1000).toFixed(1)} s)\n`);

const tenon = CONTENDERS.find((c) => c.id === "tenon");
tenon.prepare();
const server = await startServer({ args: tenon.args, cwd: BENCH_DIR, env: { BENCH_DB: "sqlite", BENCH_SQLITE_PATH: file } });
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function select(body) {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port: server.port,
        path: "/api/companies/select",
        method: "POST",
        agent,
        headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) },
      },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          const answer = Buffer.concat(chunks).toString("utf8");
          if (res.statusCode !== 200) reject(new Error(`${res.statusCode}: ${answer}`));
          else resolve(JSON.parse(answer));
        });
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

/** Median and 90th percentile of `repeat` timed selects of one body, in ms. */
async function time(body) {
  for (let i = 0; i < 3; i++) await select(body);
  const ms = [];
  for (let i = 0; i < repeat; i++) {
    const t0 = performance.now();
    await select(body);
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(ms.length / 2)], p90: ms[Math.floor(ms.length * 0.9)] };
}

const results = [];
try {
  for (const [label, orderBy] of [
    ["name, then the key", [{ columnName: "name", direction: "ASC" }]],
    ["the key", [{ columnName: "id", direction: "ASC" }]],
  ]) {
    const first = { orderBy, limit, count: false };
    // Walk to the cursor of page `target` by following nextCursor, as a client does.
    let cursor;
    let page = await select(first);
    for (let n = 2; n <= target; n++) {
      cursor = page.nextCursor;
      page = await select({ orderBy, limit, after: cursor });
    }
    const keysetTarget = { orderBy, limit, after: cursor };
    const offsetTarget = { orderBy, limit, start: (target - 1) * limit, count: false };
    const sameRows = JSON.stringify((await select(keysetTarget)).data) === JSON.stringify((await select(offsetTarget)).data);
    if (!sameRows) throw new Error(`page ${target} by after and by start differ (${label})`);
    results.push({ label, what: "page 1", ...(await time(first)) });
    results.push({ label, what: `page ${target} by after`, ...(await time(keysetTarget)) });
    results.push({ label, what: `page ${target} by start`, ...(await time(offsetTarget)) });
    results.push({ label, what: "page 1 with count", ...(await time({ orderBy, limit })) });
  }
} finally {
  agent.destroy();
  await server.stop();
}

console.log(`\nKeyset pages, ${rows.toLocaleString("en")} rows, ${limit} rows a page, SQLite, one connection, ${repeat} requests each`);
console.log("| order | page | median ms | p90 ms |");
console.log("|---|---|---|---|");
for (const r of results) console.log(`| ${r.label} | ${r.what} | ${r.median.toFixed(2)} | ${r.p90.toFixed(2)} |`);
