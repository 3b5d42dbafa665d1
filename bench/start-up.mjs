// Start-up and memory of each contender: every contender's server is started `--starts` times (the contenders
// taking turns, so a change in the machine's load falls on all of them), each start timed from the spawn to its
// first answered request (GET /api/health), with the CPU time the process used until then (all of its threads)
// and its resident set at that moment. Prints the medians and their ratios to raw node:http.
//   node bench/start-up.mjs                                    # raw, fastify, tenon; 10 starts each
//   node bench/start-up.mjs --contenders raw,tenon --starts 20
// Wall-clock start-up moves with the machine's load; the CPU time moves less; run it on a quiet machine for the
// figure of record (docs/benchmarks.md, "Start-up and memory"). Peak RSS under load is printed by `npm run bench`.
// Needs the framework built (`npm run build`: `import "tenon"` loads its bundle, dist/pkg).
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { BENCH_DIR, namedContenders } from "./lib/contenders.mjs";
import { sqliteDataset } from "./lib/dataset.mjs";
import { cpuNs, rssMiB, startServer } from "./lib/server-process.mjs";
import { median } from "./lib/stats.mjs";

const { values: o } = parseArgs({
  options: {
    contenders: { type: "string", default: "raw,fastify,tenon" },
    starts: { type: "string", default: "10" },
    help: { type: "boolean", default: false },
  },
});
if (o.help) {
  console.log(
    fs
      .readFileSync(new URL(import.meta.url), "utf8")
      .split("\n")
      .filter((l) => l.startsWith("//"))
      .join("\n"),
  );
  process.exit(0);
}

const contenders = namedContenders(o.contenders, { ready: true });
const TMP = path.join(BENCH_DIR, "results", "tmp");
fs.mkdirSync(TMP, { recursive: true });
fs.mkdirSync(path.join(BENCH_DIR, "node_modules"), { recursive: true });
const file = sqliteDataset(TMP, 10000);
for (const c of contenders) c.prepare?.();

const samples = new Map(contenders.map((c) => [c.id, { wall: [], cpu: [], rss: [] }]));
for (let round = 0; round < Number(o.starts); round++) {
  for (const c of contenders) {
    const server = await startServer({ args: c.args, cwd: BENCH_DIR, env: { ...c.env, BENCH_SQLITE_PATH: file } });
    const s = samples.get(c.id);
    s.cpu.push((cpuNs(server.pid) ?? Number.NaN) / 1e6);
    s.rss.push(rssMiB(server.pid) ?? Number.NaN);
    s.wall.push(server.startupMs);
    await server.stop();
  }
}

const base = samples.get("raw");
const ratio = (id, key) => (base === undefined ? "" : ` (${(median(samples.get(id)[key]) / median(base[key])).toFixed(2)})`);
console.log(`${o.starts} starts each, medians (ratio to raw node:http)`);
console.log(`${"contender".padEnd(24)} ${"to first answer".padStart(22)} ${"CPU until then".padStart(22)} ${"RSS then".padStart(20)}`);
for (const c of contenders) {
  const s = samples.get(c.id);
  console.log(
    `${c.label.padEnd(24)} ${`${median(s.wall).toFixed(0)} ms${ratio(c.id, "wall")}`.padStart(22)} ${`${median(s.cpu).toFixed(0)} ms${ratio(c.id, "cpu")}`.padStart(22)} ${`${median(s.rss).toFixed(0)} MiB${ratio(c.id, "rss")}`.padStart(20)}`,
  );
}
