// Start-up counted instead of timed: each contender's server runs under callgrind from its spawn to its first
// answered request (GET /api/health), and the figure is its main thread's instructions until then, less V8's
// hash-seed search (`HashSeed::InitializeRoots`, a random search for a prime that moves a start by 5-30M). The
// machine's load does not move it; the spread of a few starts is a few million. Prints the median of `--starts`
// for each contender and its ratio to raw node:http.
//   node bench/start-up-instructions.mjs                               # raw, fastify, tenon; 3 starts each
//   node bench/start-up-instructions.mjs --contenders raw,tenon --starts 5
// `NODE_EXTRA_CA_CERTS` is taken out of the servers' environment: with it every node process reads a certificate
// bundle at launch (hundreds of millions of instructions), the same for every contender, which pads the ratio.
// Set NODE_COMPILE_CACHE to count starts that read Node's compile cache (Node.js 22.1+; a first start fills it).
// Needs valgrind and the framework built (`npm run build`).
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";
import { countUnderCallgrind } from "./lib/callgrind.mjs";
import { BENCH_DIR, namedContenders } from "./lib/contenders.mjs";
import { sqliteDataset } from "./lib/dataset.mjs";
import { median } from "./lib/stats.mjs";

const { values: o } = parseArgs({
  options: {
    contenders: { type: "string", default: "raw,fastify,tenon" },
    starts: { type: "string", default: "3" },
  },
});
const contenders = namedContenders(o.contenders, { ready: true });
const TMP = path.join(BENCH_DIR, "results", "tmp");
fs.mkdirSync(TMP, { recursive: true });
const file = sqliteDataset(TMP, 10000);
for (const c of contenders) c.prepare?.();

/** The main thread's instructions from the spawn of `contender` to its first answer, less the hash-seed search. */
async function countStart(contender) {
  const env = { ...process.env, ...contender.env, BENCH_SQLITE_PATH: file };
  delete env.NODE_EXTRA_CA_CERTS;
  const { instructions, seedSearch } = await countUnderCallgrind({
    args: contender.args,
    cwd: BENCH_DIR,
    env,
    outFile: path.join(TMP, `start-up-${contender.id}-${process.pid}.out`),
    label: contender.label,
    fromSpawn: true,
    threads: "main",
    counted: (port) =>
      new Promise((resolve, reject) =>
        http
          .get({ host: "127.0.0.1", port, path: "/api/health", agent: false }, (res) => res.resume().on("end", resolve))
          .on("error", reject),
      ),
  });
  return instructions - seedSearch;
}

const figures = new Map(contenders.map((c) => [c.id, []]));
for (let round = 0; round < Number(o.starts); round++) {
  for (const c of contenders) figures.get(c.id).push(await countStart(c));
}
const raw = figures.has("raw") ? median(figures.get("raw")) : undefined;
console.log(`Node ${process.version}, main-thread instructions from the spawn to the first answer, median of ${o.starts} starts`);
for (const c of contenders) {
  const value = median(figures.get(c.id));
  const all = figures
    .get(c.id)
    .map((n) => `${(n / 1e6).toFixed(1)}M`)
    .join(", ");
  const ratio = raw === undefined || c.id === "raw" ? "" : ` (${(value / raw).toFixed(2)} of raw)`;
  console.log(`${c.label.padEnd(24)} ${(value / 1e6).toFixed(1)}M${ratio}   [${all}]`);
}
