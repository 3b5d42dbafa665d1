// Summarises a V8 .cpuprofile (from `--cpu-prof`): self time per function and per file, and the total
// time spent under each Tenon function. Usage: node lib/profile-summary.mjs <file.cpuprofile> [top]
import fs from "node:fs";

const [file, topArg] = process.argv.slice(2);
const top = Number(topArg ?? 25);
const p = JSON.parse(fs.readFileSync(file, "utf8"));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
// Sample counts -> time per node.
const dt = new Map();
for (let i = 0; i < p.samples.length; i++) dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
const total = [...dt.values()].reduce((a, b) => a + b, 0);
const short = (url) => url.replace(/^file:\/\//, "").replace(/^.*\/(node_modules\/|dist\/)/, "$1");
const key = (n) => `${n.callFrame.functionName || "(anonymous)"}  ${short(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
const self = new Map();
const files = new Map();
const inclusive = new Map();
for (const [id, t] of dt) {
  const n = byId.get(id);
  self.set(key(n), (self.get(key(n)) ?? 0) + t);
  const f = short(n.callFrame.url) || `(${n.callFrame.functionName})`;
  files.set(f, (files.get(f) ?? 0) + t);
  const seen = new Set();
  for (let x = id; x !== undefined; x = parent.get(x)) {
    const k = key(byId.get(x));
    if (seen.has(k)) continue;
    seen.add(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + t);
  }
}
const pct = (t) => `${((100 * t) / total).toFixed(1).padStart(5)}%`;
const show = (title, m, filter = () => true) => {
  console.log(`\n${title}`);
  for (const [k, t] of [...m]
    .filter(([k]) => filter(k))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top))
    console.log(`${pct(t)}  ${k}`);
};
console.log(`${file}: ${(total / 1e6).toFixed(2)} s sampled`);
show("self time by function", self);
show("self time by file", files);
show("total time under Tenon functions (dist/src)", inclusive, (k) => /dist\/src\//.test(k));
