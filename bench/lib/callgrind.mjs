// A server under valgrind's callgrind, counted only while `counted` loads it (instrumentation switched on
// with callgrind_control after `warm`, one dump per counted window): the instructions of user space, of every
// thread or of the main thread.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/**
 * Starts `node <args>` under callgrind in `cwd` with `env`, waits for its `LISTENING <port>` line, runs
 * `warm(port)` uncounted and then `counted(port)` `windows` times, counted, each count written apart (a callgrind
 * dump after each), stops it, and answers `{ warmed, counted, instructions, background, collector, windows }`:
 * what `warm` and the last `counted` answered; per window, the instructions counted (`threads: "all"`, the
 * default: of every thread; `"main"`: of the main thread alone), those of the other threads, and of the counted
 * ones those of V8's garbage collector (`windows`, a list); and the first window's figures. `outFile` is the callgrind output's path (files `<outFile>.<window>-<thread>`, thread 01
 * the main thread; removed afterwards unless `keep`); `stderr` "pipe" or "ignore". With `fromSpawn`, the first
 * window is counted from the spawn instead (no `warm`), and `seedSearch` answers what V8's hash-seed search
 * (`HashSeed::InitializeRoots`, a random search for a prime that moves a start by 5-30M) cost the main thread in it.
 */
export async function countUnderCallgrind({
  args,
  cwd,
  env,
  outFile,
  stderr = "ignore",
  label = "the server",
  warm,
  counted,
  windows = 1,
  keep = false,
  threads = "all",
  fromSpawn = false,
}) {
  const server = spawn(
    "valgrind",
    [
      "--tool=callgrind",
      "--smc-check=all-non-file",
      ...(fromSpawn ? [] : ["--instr-atstart=no"]),
      "--separate-threads=yes",
      // More events where asked, e.g. BENCH_CALLGRIND_ARGS="--cache-sim=yes --branch-sim=yes" (misses, without hardware counters).
      ...(process.env.BENCH_CALLGRIND_ARGS ?? "").split(" ").filter((arg) => arg !== ""),
      `--callgrind-out-file=${outFile}`,
      process.execPath,
      ...args,
    ],
    { cwd, stdio: ["ignore", "pipe", stderr], env },
  );
  let errors = "";
  server.stderr?.on("data", (d) => {
    errors = (errors + d).slice(-4000);
  });
  const port = await new Promise((resolve, reject) => {
    let out = "";
    server.stdout.on("data", (d) => {
      out += d;
      const m = /LISTENING (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    server.on("exit", (code) => reject(new Error(`${label} exited (${code}) before listening\n${errors}`)));
  });
  const exited = new Promise((resolve) => server.once("exit", resolve));
  const control = (...command) => execFileSync("callgrind_control", [...command, String(server.pid)], { stdio: "ignore" });
  let warmed;
  let result;
  try {
    if (!fromSpawn) {
      warmed = await warm(port);
      control("-i", "on");
    }
    for (let window = 1; window <= windows; window++) {
      result = await counted(port);
      control(`--dump=window ${window}`);
    }
    control("-i", "off");
  } catch (error) {
    server.kill("SIGKILL");
    await exited;
    throw new Error(`${label}: ${error.message}\n${errors}`, { cause: error });
  }
  server.kill("SIGTERM");
  await exited;
  const dir = path.dirname(outFile);
  const base = path.basename(outFile);
  const counts = Array.from({ length: windows }, () => ({ instructions: 0, background: 0, collector: 0 }));
  let seedSearch = 0;
  for (const f of fs.readdirSync(dir).filter((f) => f.startsWith(base))) {
    const text = fs.readFileSync(path.join(dir, f), "utf8");
    const m = /^\.(\d+)-(\d+)$/.exec(f.slice(base.length));
    if (fromSpawn && m !== null && m[1] === "1" && m[2] === "01") seedSearch = seedSearchCost(path.join(dir, f));
    if (!keep) fs.rmSync(path.join(dir, f));
    if (m === null || Number(m[1]) > windows) continue; // the dump at exit: what ran after the last window
    const total = Number(/^totals: (\d+)/m.exec(text)?.[1] ?? 0);
    const count = counts[Number(m[1]) - 1];
    if (threads === "all" || m[2] === "01") {
      count.instructions += total;
      count.collector += collectorCost(text);
    } else count.background += total;
  }
  return { warmed, counted: result, ...counts[0], windows: counts, seedSearch };
}

/** The inclusive cost of V8's hash-seed search in a callgrind output (0 where it did not run). */
function seedSearchCost(file) {
  const annotated = execFileSync("callgrind_annotate", ["--inclusive=yes", file], { encoding: "utf8", maxBuffer: 1 << 28 });
  const line = /^\s*([\d,]+) .*HashSeed::InitializeRoots/m.exec(annotated);
  return line === null ? 0 : Number(line[1].replaceAll(",", ""));
}

/** V8's garbage collector, by the names of its functions (the scavenger, marking, sweeping, the heap's own). */
const collectorFunction =
  /Scaveng|IterateObjectCache|RootScavengeVisitor|Heap::|Evacuat|Marking|Sweeper|MarkCompact|heap::base::|GCTracer|MemoryAllocator|PagedSpace|SemiSpace|NewSpace|RememberedSet|SlotSet/;

/**
 * The instructions of a callgrind output spent in the garbage collector's functions (their own cost, not what
 * they call): the part of a window that moves most from run to run, with how many collections fall into it.
 */
function collectorCost(text) {
  const names = new Map();
  let inCollector = false;
  let afterCall = false;
  let cost = 0;
  for (const line of text.split("\n")) {
    const first = line.charCodeAt(0);
    if (first === 102 /* f */ && line.startsWith("fn=")) {
      const m = /^fn=\((\d+)\)(?: (.*))?$/.exec(line);
      if (m !== null && m[2] !== undefined) names.set(m[1], m[2]);
      const name = m === null ? line.slice(3) : (names.get(m[1]) ?? "");
      inCollector = collectorFunction.test(name);
      continue;
    }
    if (first === 99 /* c */) {
      const m = /^cfn=\((\d+)\) (.*)$/.exec(line);
      if (m !== null) names.set(m[1], m[2]);
      else if (line.startsWith("calls=")) afterCall = true;
      continue;
    }
    if ((first >= 48 && first <= 57) || first === 43 || first === 45 || first === 42) {
      // the line after `calls=` is the call's inclusive cost, counted in the callee
      if (afterCall) afterCall = false;
      else if (inCollector) cost += Number(line.split(" ")[1] ?? 0);
    }
  }
  return cost;
}
