// Where the instructions of a request go, function by function: reads the callgrind output that
// `node bench/instructions.mjs --keep` leaves (every thread's file), names the JavaScript functions V8 compiled
// (callgrind sees only their addresses) from the perf map the server wrote (`--perf-basic-prof`, which `--keep`
// turns on), and prints each function's own instructions per request, the largest first. Given two runs
// (`--against`), it prints the difference, function by function: what one contender executes that the other does not.
//   node bench/callgrind-functions.mjs <out-file-prefix> [--count N] [--top 60] [--against <prefix> --against-count N]
// The prefix is the path instructions.mjs prints (`.../callgrind-S2-tenon-1234.out`); N the requests counted.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";

const { values: o, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    count: { type: "string", default: "5000" },
    top: { type: "string", default: "60" },
    against: { type: "string" },
    "against-count": { type: "string" },
    group: { type: "boolean", default: false },
  },
});

/** The perf map of a process: sorted [start, end, name] ranges of the code V8 generated. */
function perfMap(pid) {
  const file = `/tmp/perf-${pid}.map`;
  if (!fs.existsSync(file)) return [];
  const ranges = [];
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    const m = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
    if (m) ranges.push([Number.parseInt(m[1], 16), Number.parseInt(m[1], 16) + Number.parseInt(m[2], 16), m[3]]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  return ranges;
}

function nameAt(ranges, address) {
  let lo = 0;
  let hi = ranges.length - 1;
  let found;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (ranges[mid][0] <= address) {
      found = ranges[mid];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  // the last definition of a range wins (code recompiled at the same address); good enough for a profile
  return found !== undefined && address < found[1] ? found[2] : undefined;
}

/** Self instructions per function name, summed over every thread's file of one run. */
function selfCosts(prefix) {
  const dir = path.dirname(prefix);
  const files = fs.readdirSync(dir).filter((f) => f.startsWith(path.basename(prefix)));
  if (files.length === 0) throw new Error(`no callgrind output at ${prefix}*`);
  const costs = new Map();
  let pid;
  for (const f of files) {
    const text = fs.readFileSync(path.join(dir, f), "utf8");
    pid ??= /^pid: (\d+)/m.exec(text)?.[1];
    const names = new Map();
    let fn = "?";
    let skipNext = false;
    for (const line of text.split("\n")) {
      if (line.startsWith("fn=")) {
        const m = /^fn=\((\d+)\)(?: (.*))?$/.exec(line);
        if (m) {
          if (m[2] !== undefined) names.set(m[1], m[2]);
          fn = names.get(m[1]) ?? m[1];
        } else fn = line.slice(3);
        continue;
      }
      if (line.startsWith("cfn=") || line.startsWith("cfi=") || line.startsWith("cfl=")) {
        const m = /^cfn=\((\d+)\) (.*)$/.exec(line);
        if (m) names.set(m[1], m[2]);
        continue;
      }
      if (line.startsWith("calls=")) {
        skipNext = true; // the next cost line is the call's inclusive cost
        continue;
      }
      const c = /^[+\-*]?\d*\s+(\d+)/.exec(line);
      if (c && /^[+\-*0-9]/.test(line)) {
        if (skipNext) {
          skipNext = false;
          continue;
        }
        costs.set(fn, (costs.get(fn) ?? 0) + Number(c[1]));
      }
    }
  }
  const ranges = pid === undefined ? [] : perfMap(pid);
  const named = new Map();
  for (const [fn, cost] of costs) {
    let name = fn;
    const hex = /^0x([0-9a-f]+)$/.exec(fn);
    if (hex) name = nameAt(ranges, Number.parseInt(hex[1], 16)) ?? "(JIT code, unnamed)";
    if (o.group) name = groupOf(name);
    named.set(name, (named.get(name) ?? 0) + cost);
  }
  return named;
}

/** A coarse bucket of a function name: V8's builtins, the garbage collector, Node's C++, SQLite, JavaScript by file. */
function groupOf(name) {
  if (/^(JS|LazyCompile|Function|Builtin|Interpreted|Maglev|Turbofan|Sparkplug)?:?[*~^+]?/.test(name) && name.includes(" ")) {
    const file = /(?:file:\/\/|node:)([^:]+)/.exec(name);
    if (file) return `JS ${file[1].replace(/.*\/node_modules\//, "npm:").replace(/.*\/(dist|bench)\//, "$1/")}`;
  }
  if (name.startsWith("Builtins_")) return /IC(_|$)/.test(name) ? "V8 inline caches" : "V8 builtins";
  if (name.startsWith("v8::internal::compiler::") || name.startsWith("v8::internal::maglev::")) return "V8 optimizing compiler";
  if (name.includes("v8::internal::Heap") || /Scavenge|MarkCompact|Sweeper|Marking|Evacuat/.test(name)) return "V8 GC";
  if (name.startsWith("v8::")) return "V8 C++";
  if (name.startsWith("node::")) return "Node C++";
  if (name.startsWith("sqlite3")) return "SQLite";
  return name;
}

const count = Number(o.count);
const a = selfCosts(positionals[0]);
const top = Number(o.top);
const fmt = (n) => Math.round(n).toLocaleString("en").padStart(9);
if (o.against === undefined) {
  const rows = [...a].map(([name, cost]) => [name, cost / count]).sort((x, y) => y[1] - x[1]);
  const total = rows.reduce((s, r) => s + r[1], 0);
  console.log(`${fmt(total)}  total instructions per request`);
  for (const [name, cost] of rows.slice(0, top)) console.log(`${fmt(cost)}  ${name}`);
} else {
  const b = selfCosts(o.against);
  const countB = Number(o["against-count"] ?? o.count);
  const names = new Set([...a.keys(), ...b.keys()]);
  const rows = [...names].map((name) => [name, (a.get(name) ?? 0) / count, (b.get(name) ?? 0) / countB]);
  const sum = (i) => rows.reduce((s, r) => s + r[i], 0);
  console.log(`${fmt(sum(1))} ${fmt(sum(2))} ${fmt(sum(1) - sum(2))}  total (this, against, difference)`);
  rows.sort((x, y) => Math.abs(y[1] - y[2]) - Math.abs(x[1] - x[2]));
  for (const [name, x, y] of rows.slice(0, top)) console.log(`${fmt(x)} ${fmt(y)} ${fmt(x - y)}  ${name}`);
}
