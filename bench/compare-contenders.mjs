// The benchmark harness of issue 8. Run from the repository root with `npm run bench [-- options]`.
//   --quick               1 round, 2 s runs, 1 s warm-up (for development; writes results/quick.*)
//   --rounds N            rounds, contenders interleaved in each (default 3)
//   --duration S          seconds measured per run (default 10)     --warmup S   warm-up seconds (default 3)
//   --connections N       connections of the load (default 50)      --rows N     table size (default 10000)
//   --scenario A,B        scenario ids, or prefixes (S7 = S7-*, PG = PG-*, S3 = S3 and its series)
//   --contenders a,b      contender ids (raw tenon fastify nest express)
//   --loader wrk|autocannon   --out NAME (results/NAME.json|svg)   --cpu-prof ID (profile that contender)
//   --slices N            read-only scenarios: every server of a round is started and warmed, then each run
//                         is measured as N slices of duration/N seconds, the servers taking turns (default 5;
//                         1 runs each server alone, start to stop, as the scenarios that write always do)
//   --keep-data           leave the PostgreSQL schema tenon_bench in place       --help   this text
// Scenarios whose id ends in -paired measure both sides of a ratio (S6 against S2, 10,000 routes against 10)
// with each contender alternating between them in every round; they appear as derived figures.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { BENCH_DIR, CONTENDERS, ROOT_DIR, frameworkVersions } from "./lib/contenders.mjs";
import { copySqlite, dropPgDataset, pgDataset, removeSqlite, sqliteDataset } from "./lib/dataset.mjs";
import { pickLoader, runLoad } from "./lib/load.mjs";
import { requestSource } from "./lib/requests.mjs";
import { markdown, svgChart, textTable } from "./lib/report.mjs";
import { allScenarios, selectScenarios } from "./lib/scenarios.mjs";
import { cpuNs, peakRssMiB, startServer } from "./lib/server-process.mjs";
import { combineSlices, summarize } from "./lib/stats.mjs";

if (process.argv.includes("--help") || process.argv.includes("-h")) {
  // the option list is the header of this file
  const text = fs.readFileSync(new URL(import.meta.url), "utf8");
  const header = text.split("\n");
  console.log(
    header
      .slice(
        0,
        header.findIndex((line) => !line.startsWith("//")),
      )
      .map((line) => line.slice(3))
      .join("\n"),
  );
  process.exit(0);
}

const { values: o } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    rounds: { type: "string" },
    duration: { type: "string" },
    warmup: { type: "string" },
    connections: { type: "string", default: "50" },
    rows: { type: "string", default: "10000" },
    scenario: { type: "string", multiple: true, default: [] },
    contenders: { type: "string", multiple: true, default: [] },
    loader: { type: "string", default: "auto" },
    out: { type: "string" },
    "cpu-prof": { type: "string" },
    "keep-data": { type: "boolean", default: false },
    threads: { type: "string", default: "1" },
    slices: { type: "string" },
  },
});
const list = (xs) =>
  xs
    .flatMap((x) => x.split(","))
    .map((x) => x.trim())
    .filter(Boolean);
const opts = {
  rounds: Number(o.rounds ?? (o.quick ? 1 : 3)),
  duration: Number(o.duration ?? (o.quick ? 2 : 10)),
  warmup: Number(o.warmup ?? (o.quick ? 1 : 3)),
  connections: Number(o.connections),
  rows: Number(o.rows),
  threads: Number(o.threads),
  scenarios: list(o.scenario),
  contenders: list(o.contenders),
  slices: Math.max(1, Math.trunc(Number(o.slices ?? (o.quick ? 1 : 5)))),
};
const outName = o.out ?? (o.quick ? "quick" : "latest");
const RESULTS = path.join(BENCH_DIR, "results");
const TMP = path.join(RESULTS, "tmp");
fs.mkdirSync(TMP, { recursive: true });
// The data set is built afresh by every run, so that nothing a previous run or a developer did to it stays.
for (const f of fs.readdirSync(TMP)) if (/^companies-\d+\.sqlite/.test(f)) fs.rmSync(path.join(TMP, f), { force: true });

const loader = pickLoader(o.loader === "auto" ? undefined : o.loader);
// wrk takes whole seconds: a slice of 1.2 s would fail every run of a read-only scenario.
if (loader.name === "wrk" && opts.slices > 1 && !Number.isInteger(opts.duration / opts.slices)) {
  console.error(
    `--duration ${opts.duration} in ${opts.slices} slices is not whole seconds a slice, which wrk needs: make it a multiple of --slices`,
  );
  process.exit(2);
}
const scenarios = selectScenarios(allScenarios(opts.rows), opts.scenarios);

// Contenders: the ones asked for, available (Tenon once the framework is built), prepared once.
// A contender marked `optIn` (Tenon on node:sqlite) runs only when named.
const wanted = new Set(opts.contenders.length ? opts.contenders : CONTENDERS.filter((c) => !c.optIn).map((c) => c.id));
const ready = new Map();
for (const c of CONTENDERS) {
  if (!wanted.has(c.id)) continue;
  if (c.available && !c.available()) {
    console.log(`- ${c.label}: not available yet, skipped`);
    continue;
  }
  try {
    c.prepare?.();
    ready.set(c.id, c);
  } catch (e) {
    console.log(`- ${c.label}: could not be prepared, skipped\n${e.message}`);
  }
}

const cpus = os.cpus();
const meta = {
  date: new Date().toISOString().slice(0, 16).replace("T", " ") + " UTC",
  machine: `${cpus.length} × ${cpus[0]?.model?.trim() ?? "cpu"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}`,
  node: process.version,
  cpuCount: cpus.length,
  cpuModel: cpus[0]?.model?.trim(),
  platform: `${os.platform()} ${os.release()}`,
  loadAverageAtStart: os.loadavg().map((x) => Math.round(x * 100) / 100),
  command: process.env.BENCH_COMMAND ?? `node ${path.relative(ROOT_DIR, process.argv[1])} ${process.argv.slice(2).join(" ")}`.trim(),
  loader: `${loader.version}${loader.name === "wrk" ? `, ${opts.threads} thread` : ""}`,
  connections: opts.connections,
  duration: opts.duration,
  warmup: opts.warmup,
  rounds: opts.rounds,
  rows: opts.rows,
  slices: opts.slices,
  versions: frameworkVersions(),
  contenders: [...ready.keys()],
};
console.log(`Tenon bench: ${meta.machine}, Node ${meta.node}, ${meta.loader}`);
console.log(
  `${opts.rounds} round(s), ${opts.warmup} s warm-up + ${opts.duration} s${opts.slices > 1 ? ` in ${opts.slices} slices taken in turn (read-only scenarios)` : ""}, ${opts.connections} connections, ${opts.rows} rows; scenarios ${scenarios.map((s) => s.id).join(" ")}`,
);

/** One request from the spec, to see that a server answers it before loading it. */
function probe(port, spec) {
  const r = requestSource(spec)();
  return new Promise((resolve) => {
    const req = http.request({ host: "127.0.0.1", port, method: r.method, path: r.path, headers: r.headers ?? {}, agent: false }, (res) => {
      let body = "";
      res.on("data", (d) => {
        body += d;
      });
      res.on("end", () => resolve({ status: res.statusCode, body: body.slice(0, 300) }));
    });
    req.on("error", (e) => resolve({ status: 0, body: e.message }));
    req.end(r.body);
  });
}

const runs = [];
const failures = [];
let pg = null;
const started = Date.now();
try {
  for (const s of scenarios) {
    // Tenon on a named SQLite driver runs wherever Tenon does.
    const ids = s.contenders
      .flatMap((id) => (id === "tenon" ? [id, "tenon-node-sqlite", "tenon-better-sqlite3"] : [id]))
      .filter((id) => ready.has(id));
    if (ids.length === 0) continue;
    const rows = s.rows ?? opts.rows;
    const db = s.db ?? "sqlite";
    const pristine = db === "sqlite" ? sqliteDataset(TMP, rows) : null;
    if (db === "postgres" && pg === null) pg = await pgDataset(opts.rows);
    const connections = s.connections ?? opts.connections;
    for (let round = 0; round < opts.rounds; round++) {
      // Interleaved: every round runs each contender once, starting one further along each time. A paired
      // scenario runs each contender once per variant, back to back, in turn forward and backward.
      const variants = s.variants === undefined ? [null] : round % 2 === 0 ? s.variants : [...s.variants].reverse();
      const order = ids.map((_, i) => ids[(i + round) % ids.length]).flatMap((id) => variants.map((variant) => ({ id, variant })));
      const units = order.map(({ id, variant }) => {
        const c = ready.get(id);
        const logFile = path.join(TMP, `http-${id}${variant ? `-${variant.label}` : ""}.log`);
        return {
          id,
          variant,
          c,
          logFile,
          spec: variant?.spec ?? s.spec,
          tag: `${s.id} ${c.label}${variant ? ` ${variant.label}` : ""} round ${round + 1}`,
          env: {
            BENCH_DB: db,
            BENCH_PG_URL: pg?.url ?? "",
            BENCH_PG_SCHEMA: pg?.schema ?? "tenon_bench",
            BENCH_LOG: "",
            BENCH_LOG_FILE: logFile,
            BENCH_ROUTES: "0",
            ...c.env,
            ...s.env,
            ...s.envFor?.[id],
            ...variant?.env,
          },
          nodeArgs:
            o["cpu-prof"] === id
              ? [
                  "--cpu-prof",
                  "--cpu-prof-dir",
                  path.join(RESULTS, "profiles"),
                  "--cpu-prof-name",
                  `${s.id}-${id}${variant ? `-${variant.label}` : ""}-r${round + 1}.cpuprofile`,
                ]
              : [],
        };
      });
      // Each load also reads the server's CPU time before and after (cpuNs: null where /proc cannot tell).
      const load = async (u, seconds, spec = u.spec) => {
        const before = cpuNs(u.server.pid);
        const r = await runLoad({ loader, port: u.server.port, spec, connections, seconds, threads: opts.threads, scriptDir: TMP });
        const after = cpuNs(u.server.pid);
        return { ...r, cpuNs: before === null || after === null ? null : after - before };
      };
      const record = (u, r) => {
        const cpuUs = r.cpuNs != null && r.requests > 0 ? r.cpuNs / r.requests / 1000 : null;
        const run = {
          scenario: s.id,
          contender: u.id,
          ...(u.variant ? { variant: u.variant.label } : {}),
          round: round + 1,
          ...r,
          cpuUs,
          startupMs: u.server.startupMs,
          peakRssMiB: peakRssMiB(u.server.pid),
        };
        runs.push(run);
        console.log(
          `  ${u.tag.padEnd(44)} ${run.rps.toFixed(0).padStart(7)} req/s  p50 ${run.p50Ms.toFixed(2)} ms  p99 ${run.p99Ms.toFixed(2)} ms  cpu ${cpuUs?.toFixed(1) ?? "-"} us/req  start ${run.startupMs.toFixed(0)} ms  rss ${run.peakRssMiB?.toFixed(0)} MiB${run.errors ? `  errors ${run.errors}` : ""}`,
        );
      };
      const fail = (u, e) => {
        failures.push({ scenario: s.id, contender: u.id, round: round + 1, error: String(e.message ?? e).slice(0, 2000) });
        console.log(`  ! ${u.tag}: ${e.message}`);
      };
      const start = async (u, file) => {
        fs.rmSync(u.logFile, { force: true });
        u.server = await startServer({
          args: u.c.args,
          cwd: BENCH_DIR,
          env: { ...u.env, BENCH_SQLITE_PATH: file ?? "" },
          nodeArgs: u.nodeArgs,
        });
        if (!s.write) {
          const p = await probe(u.server.port, u.spec);
          if (p.status !== 200) console.log(`  ! ${u.tag}: probe answered ${p.status} ${p.body}`);
        }
      };
      const stop = async (u) => {
        await u.server?.stop();
        fs.rmSync(u.logFile, { force: true });
      };
      if (s.write || opts.slices === 1) {
        // One server at a time, start to stop: a write scenario's load walks its rows once per server start.
        for (const u of units) {
          let file = pristine;
          if (db === "sqlite" && s.write) file = copySqlite(pristine, path.join(TMP, `write-${u.id}.sqlite`));
          if (db === "postgres" && s.write) await pg.reset();
          try {
            await start(u, file);
            await load(u, opts.warmup, s.warmSpec ?? u.spec);
            record(u, await load(u, opts.duration));
          } catch (e) {
            fail(u, e);
          } finally {
            await stop(u);
            if (db === "sqlite" && s.write) removeSqlite(file);
          }
        }
        continue;
      }
      // Read-only: every server of the round up and warmed, then measured in slices taken in turn (forward,
      // then backward), so that a shared machine's drift over seconds and minutes falls on all of them alike.
      const live = [];
      try {
        for (const u of units) {
          try {
            await start(u, pristine);
            live.push(u);
          } catch (e) {
            fail(u, e);
          }
        }
        for (const u of live) await load(u, opts.warmup);
        const slices = new Map(live.map((u) => [u, []]));
        for (let k = 0; k < opts.slices; k++) {
          for (const u of k % 2 === 0 ? live : [...live].reverse()) slices.get(u).push(await load(u, opts.duration / opts.slices));
        }
        for (const u of live) record(u, combineSlices(slices.get(u)));
      } catch (e) {
        for (const u of live) fail(u, e);
      } finally {
        for (const u of units) await stop(u);
      }
    }
  }
} finally {
  if (pg !== null && !o["keep-data"]) await dropPgDataset().catch((e) => console.log(`could not drop tenon_bench: ${e.message}`));
}

const summary = summarize(scenarios, runs);
meta.elapsedSeconds = Math.round((Date.now() - started) / 1000);
console.log(`\n${textTable(summary)}\n`);
const result = { meta, options: opts, summary, runs, failures };
fs.writeFileSync(path.join(RESULTS, `${outName}.json`), `${JSON.stringify(result, null, 2)}\n`);
fs.writeFileSync(path.join(RESULTS, `${outName}.svg`), svgChart(summary, meta));
fs.writeFileSync(path.join(RESULTS, `${outName}.md`), markdown(summary, meta));
console.log(`wrote bench/results/${outName}.json, .svg and .md (${meta.elapsedSeconds} s)`);
// A full run (no filter, default output) also refreshes the table in docs/benchmarks.md.
const doc = path.join(ROOT_DIR, "docs", "benchmarks.md");
if (outName === "latest" && opts.scenarios.length === 0 && opts.contenders.length === 0 && fs.existsSync(doc)) {
  const text = fs.readFileSync(doc, "utf8");
  const start = "<!-- bench:results:start -->";
  const end = "<!-- bench:results:end -->";
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a >= 0 && b > a) {
    const block = `${start}\n${markdown(summary, meta)}\nCommand: \`${meta.command}\`; Node ${meta.node}; load average at start ${meta.loadAverageAtStart.join(" ")}.\n${end}`;
    fs.writeFileSync(doc, text.slice(0, a) + block + text.slice(b + end.length));
    console.log("updated docs/benchmarks.md");
  }
}
if (failures.length) {
  console.log(`${failures.length} run(s) failed`);
  process.exitCode = 1;
}
