// The write cost of the change feed's outbox (docs/changes.md), in instructions per request under callgrind with
// FIXED request counts (as bench/instructions.mjs: a loaded machine takes longer but divides by the same number):
// S4 (PUT with version check, each row once at the version it is at) and S5 (POST insert) of Tenon's contender,
// with its Company as it is (no change feed: what every entity without @ChangeFeed pays) and with
// BENCH_CHANGE_FEED=1 (the same table through a subclass with @ChangeFeed: each write also serializes the row,
// raises the counter and inserts its record in the same transaction). Each run gets a fresh copy of the data, is
// warmed on other rows than the counted ones, and prints its figure; then the ratio on/off.
//   node bench/change-feed-cost.mjs [--scenarios S4,S5] [--warmup 1000] [--count 1000] [--connections 2] [--off-only]
// Needs valgrind; `npm run build` first.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";
import { countUnderCallgrind } from "./lib/callgrind.mjs";
import { BENCH_DIR, CONTENDERS } from "./lib/contenders.mjs";
import { copySqlite, sqliteDataset } from "./lib/dataset.mjs";

const { values: o } = parseArgs({
  options: {
    scenarios: { type: "string", default: "S4,S5" },
    warmup: { type: "string", default: "1000" },
    count: { type: "string", default: "1000" },
    // Few connections: under valgrind a server on a loaded machine answers 408 to requests queued too long.
    connections: { type: "string", default: "2" },
    // Only the figure without the feed (to compare with a build from before the change feed existed).
    "off-only": { type: "boolean", default: false },
  },
});
const warmup = Number(o.warmup);
const count = Number(o.count);
const rows = 10000;
if (warmup + count > rows) throw new Error(`warm-up and count together must stay within the ${rows} rows`);
const TMP = path.join(BENCH_DIR, "results", "tmp");
fs.mkdirSync(TMP, { recursive: true });
const pristine = sqliteDataset(TMP, rows);
const tenon = CONTENDERS.find((c) => c.id === "tenon");
fs.mkdirSync(path.join(BENCH_DIR, "node_modules"), { recursive: true });
tenon.prepare();

const countries = ["FR", "DE", "IT", "ES", "NL", "BE", "AT", "PT"];
const insertBody = JSON.stringify({ name: "New Company", email: "new@example.com", vatNumber: "FR12345678901", creditLimit: 5000 });

/** The request of S4 (a rename of row `id` at version 1, as the data set has it) or S5 (an insert). */
function requestOf(scenario, id) {
  if (scenario === "S5") return { method: "POST", body: insertBody };
  const body = JSON.stringify({
    id,
    name: `Company Renamed ${id}`,
    email: `contact${id}@example.com`,
    vatNumber: `${countries[id % 8]}${String(id).padStart(9, "0")}`,
    creditLimit: (id % 1000) * 100,
    versionId: 1,
  });
  return { method: "PUT", body };
}

/** Sends the requests of rows [from, from + n) over `--connections` keep-alive connections; every answer must be 200. */
async function load(port, scenario, from, n) {
  const connections = Number(o.connections);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  let next = from;
  const end = from + n;
  const loop = async () => {
    while (next < end) {
      const { method, body } = requestOf(scenario, next++);
      await new Promise((resolve, reject) => {
        const req = http.request(
          { host: "127.0.0.1", port, path: "/api/companies", method, agent, headers: { "content-type": "application/json" } },
          (res) => {
            if (res.statusCode !== 200) reject(new Error(`${scenario} answered ${res.statusCode}`));
            res.resume();
            res.on("end", resolve);
          },
        );
        req.on("error", reject);
        req.end(body);
      });
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  agent.destroy();
  return n;
}

/** Instructions per request of `scenario` with the change feed on or off. */
async function measure(scenario, feed) {
  const data = copySqlite(pristine, path.join(TMP, `feed-cost-${process.pid}.sqlite`));
  const outFile = path.join(TMP, `callgrind-feed-cost-${process.pid}.out`);
  try {
    const { instructions } = await countUnderCallgrind({
      args: tenon.args,
      cwd: BENCH_DIR,
      outFile,
      env: {
        ...process.env,
        NODE_ENV: "production",
        BENCH_DB: "sqlite",
        BENCH_SQLITE_PATH: data,
        BENCH_LOG: "",
        BENCH_ROUTES: "0",
        BENCH_CHANGE_FEED: feed ? "1" : "",
        BENCH_NO_TIMEOUTS: "1",
      },
      // Warmed on the upper rows, counted on the lower ones: each row is renamed once, at the version it is at.
      warm: (port) => load(port, scenario, rows - warmup + 1, warmup),
      counted: (port) => load(port, scenario, 1, count),
    });
    return instructions / count;
  } finally {
    for (const file of [data, `${data}-wal`, `${data}-shm`]) fs.rmSync(file, { force: true });
  }
}

const loadAverage = () => fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0];
for (const scenario of o.scenarios.split(",")) {
  const off = await measure(scenario, false);
  console.log(
    `${scenario} feed off: ${Math.round(off).toLocaleString("en")} instructions per request (${count} counted after ${warmup}; load ${loadAverage()})`,
  );
  if (o["off-only"]) continue;
  const on = await measure(scenario, true);
  console.log(
    `${scenario} feed on:  ${Math.round(on).toLocaleString("en")} instructions per request (${count} counted after ${warmup}; load ${loadAverage()})`,
  );
  console.log(`${scenario} on/off: ${(on / off).toFixed(2)}`);
}
