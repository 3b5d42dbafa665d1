// The outputs of a run: the printed table, the Markdown tables of docs/benchmarks.md (throughput, latency,
// server CPU per request, derived figures) and an SVG bar chart of the throughput ratios to the baseline.
import { CONTENDERS } from "./contenders.mjs";

const label = (id) => CONTENDERS.find((c) => c.id === id)?.label ?? id;
const k = (rps) =>
  rps == null
    ? "-"
    : rps >= 10000
      ? `${(rps / 1000).toFixed(1)}k`
      : rps >= 1000
        ? `${(rps / 1000).toFixed(2)}k`
        : rps.toFixed(rps >= 100 ? 0 : 1);
const f2 = (x) => (x == null ? "-" : x.toFixed(2));
const ms = (x) => (x == null ? "-" : x < 10 ? x.toFixed(2) : x.toFixed(1));

/** The contenders that appear in any scenario of a summary, in report order. */
export function presentContenders(summary) {
  return CONTENDERS.map((c) => c.id).filter((id) => summary.some((s) => s.contenders[id]));
}

/** The scenarios with a row of their own (a paired scenario shows as a derived figure instead). */
const plain = (summary) => summary.filter((s) => !s.paired);

/** Cells of one scenario row: the baseline as "58.7k req/s (1.00)", the others as ratios. */
function cells(s, ids) {
  return ids.map((id) => {
    const c = s.contenders[id];
    if (!c) return "";
    const warn = c.errors > 0.01 * c.requests ? " !" : "";
    return id === "raw" ? `${k(c.rps)} (1.00)${warn}` : `${f2(c.ratio)} (${k(c.rps)})${warn}`;
  });
}

const us = (x) => (x == null ? "-" : `${x < 100 ? x.toFixed(1) : x.toFixed(0)} us`);

/** CPU cells of one scenario row: the baseline as "38.2 us (1.00)", the others as the baseline's CPU over theirs. */
function cpuCells(s, ids) {
  return ids.map((id) => {
    const c = s.contenders[id];
    if (!c || c.cpuUs == null) return "";
    return id === "raw" ? `${us(c.cpuUs)} (1.00)` : `${f2(c.cpuRatio)} (${us(c.cpuUs)})`;
  });
}

/** Whether any run of the summary carries the server's CPU time (older results do not). */
const hasCpu = (summary) => plain(summary).some((s) => Object.values(s.contenders).some((c) => c.cpuUs != null));

/** Rows of derived figures: start-up, peak RSS, S6/S2, S7 flatness. */
export function derived(summary) {
  const get = (id) => summary.find((s) => s.id === id);
  const ids = presentContenders(summary);
  const rows = [];
  const startup = ids.map((id) => {
    // The plain application (S1 to S5): S7 registers thousands of routes, the series load big tables.
    const all = summary
      .filter((s) => /^S[1-5]$/.test(s.id))
      .map((s) => s.contenders[id]?.startupMs)
      .filter((x) => x != null)
      .sort((a, b) => a - b);
    return all.length ? all[all.length >> 1] : null;
  });
  rows.push({
    name: "start-up to first answer (ms, median of the S1-S5 starts)",
    values: startup.map((x) => (x == null ? "" : x.toFixed(0))),
  });
  const rss = get("RSS");
  if (rss)
    rows.push({
      name: "peak RSS under 256 connections (MiB)",
      values: ids.map((id) => (rss.contenders[id]?.peakRssMiB == null ? "" : rss.contenders[id].peakRssMiB.toFixed(0))),
    });
  for (const sid of ["S6", "S6-slow"]) {
    const s = get(sid);
    const s2 = get("S2");
    if (s && s2)
      rows.push({
        name: `${sid} / S2 of the same contender`,
        values: ids.map((id) => (s.contenders[id] && s2.contenders[id] ? f2(s.contenders[id].rps / s2.contenders[id].rps) : "")),
      });
  }
  const a = get("S7-10");
  const b = get("S7-10000");
  if (a && b)
    rows.push({
      name: "S7: 10,000 routes / 10 routes",
      values: ids.map((id) => (a.contenders[id] && b.contenders[id] ? f2(b.contenders[id].rps / a.contenders[id].rps) : "")),
    });
  for (const p of summary.filter((x) => x.paired)) {
    for (const v of p.measured) {
      rows.push({
        name: `${v} / ${p.reference}, alternating in each round (median; lowest-highest)`,
        values: ids.map((id) => {
          const r = p.contenders[id]?.ratios[v];
          if (!r || r.median == null) return "";
          const xs = r.rounds.filter((x) => x != null);
          return `${f2(r.median)} (${f2(Math.min(...xs))}-${f2(Math.max(...xs))})`;
        }),
      });
      if (!ids.some((id) => p.contenders[id]?.ratios[v]?.cpu != null)) continue;
      rows.push({
        name: `  the same in server CPU per request (${p.reference}'s over ${v}'s)`,
        values: ids.map((id) => {
          const r = p.contenders[id]?.ratios[v];
          if (!r || r.cpu == null) return "";
          const xs = r.cpuRounds.filter((x) => x != null);
          return `${f2(r.cpu)} (${f2(Math.min(...xs))}-${f2(Math.max(...xs))})`;
        }),
      });
    }
  }
  return rows;
}

/** The Markdown tables: throughput with ratios, latency, server CPU per request, and the derived figures. */
export function markdown(summary, meta) {
  const ids = presentContenders(summary);
  const head = (first) => `| ${first} | ${ids.map(label).join(" | ")} |\n|---|${ids.map(() => "---|").join("")}\n`;
  let md = `Measured ${meta.date} on ${meta.machine}; ${meta.loader}, ${meta.connections} connections, ${meta.duration} s runs after ${meta.warmup} s warm-up, ${meta.rounds} round(s) interleaved, medians. `;
  md +=
    'Baseline cells: requests per second (1.00); other cells: ratio to the baseline of the same round (requests per second). "!" marks more than 1% failed requests.\n\n';
  md += head("scenario");
  for (const s of plain(summary)) md += `| ${s.id} ${s.title} | ${cells(s, ids).join(" | ")} |\n`;
  md += "\nLatency p50 / p99 in ms:\n\n";
  md += head("scenario");
  for (const s of plain(summary))
    md += `| ${s.id} | ${ids.map((id) => (s.contenders[id] ? `${ms(s.contenders[id].p50Ms)} / ${ms(s.contenders[id].p99Ms)}` : "")).join(" | ")} |\n`;
  if (hasCpu(summary)) {
    md +=
      "\nServer CPU per request (user and kernel time of the server process over the measured requests; for PostgreSQL the database server is not counted). ";
    md +=
      "Baseline cells: microseconds (1.00); other cells: the baseline's CPU per request over the contender's in the same round, so that it reads like the throughput ratio (1.00 costs what the baseline costs; lower costs more):\n\n";
    md += head("scenario");
    for (const s of plain(summary)) md += `| ${s.id} | ${cpuCells(s, ids).join(" | ")} |\n`;
  }
  const d = derived(summary);
  if (d.length) {
    md += "\n";
    md += head("figure");
    for (const r of d) md += `| ${r.name} | ${r.values.join(" | ")} |\n`;
  }
  return md;
}

/** The table for the terminal. */
export function textTable(summary) {
  const ids = presentContenders(summary);
  const rows = [["scenario", ...ids.map(label)]];
  for (const s of plain(summary)) rows.push([`${s.id} ${s.title}`.slice(0, 58), ...cells(s, ids)]);
  rows.push(["p50 / p99 ms", ...ids.map(() => "")]);
  for (const s of plain(summary))
    rows.push([`  ${s.id}`, ...ids.map((id) => (s.contenders[id] ? `${ms(s.contenders[id].p50Ms)} / ${ms(s.contenders[id].p99Ms)}` : ""))]);
  if (hasCpu(summary)) {
    rows.push(["server CPU per request (ratio: baseline over contender)", ...ids.map(() => "")]);
    for (const s of plain(summary)) rows.push([`  ${s.id}`, ...cpuCells(s, ids)]);
  }
  for (const r of derived(summary)) rows.push([r.name.slice(0, 72), ...r.values]);
  const w = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows
    .map((r, j) => r.map((c, i) => String(c).padEnd(w[i])).join("  ") + (j === 0 ? `\n${w.map((x) => "-".repeat(x)).join("  ")}` : ""))
    .join("\n");
}

const COLORS = { raw: "#7f7f7f", tenon: "#d62728", fastify: "#1f77b4", nest: "#9467bd", express: "#2ca02c" };
const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** A horizontal grouped bar chart of the ratios to the baseline, one group per scenario. */
export function svgChart(all, meta) {
  const summary = plain(all);
  const ids = presentContenders(summary);
  const bar = 11;
  const gap = 10;
  const left = 310;
  const width = 900;
  const plot = width - left - 70;
  const max = Math.max(1.2, ...summary.flatMap((s) => Object.values(s.contenders).map((c) => c.ratio ?? 0)));
  const x = (r) => left + (r / max) * plot;
  let y = 72;
  let body = "";
  for (const s of summary) {
    const present = ids.filter((id) => s.contenders[id]);
    const h = present.length * bar;
    body += `<text x="${left - 8}" y="${y + h / 2 + 4}" text-anchor="end" font-size="11">${esc(`${s.id} ${s.title.replace(/ \(8 connections\)/, "")}`.slice(0, 48))}</text>\n`;
    present.forEach((id, i) => {
      const r = s.contenders[id].ratio ?? 0;
      body += `<rect x="${left}" y="${y + i * bar}" width="${Math.max(0.5, x(r) - left).toFixed(1)}" height="${bar - 2}" fill="${COLORS[id] ?? "#444"}"/>`;
      body += `<text x="${(x(r) + 4).toFixed(1)}" y="${y + i * bar + bar - 3}" font-size="9">${r.toFixed(2)}</text>\n`;
    });
    y += h + gap;
  }
  const height = y + 20;
  let axis = "";
  for (let t = 0; t <= max + 1e-9; t += 0.25) {
    axis += `<line x1="${x(t).toFixed(1)}" y1="64" x2="${x(t).toFixed(1)}" y2="${y}" stroke="${Math.abs(t - 1) < 1e-9 ? "#000" : "#ddd"}" stroke-width="${Math.abs(t - 1) < 1e-9 ? 1.2 : 0.6}"/>`;
    axis += `<text x="${x(t).toFixed(1)}" y="${y + 14}" text-anchor="middle" font-size="10">${t.toFixed(2)}</text>\n`;
  }
  const legend = ids
    .map(
      (id, i) =>
        `<rect x="${left + i * 115}" y="44" width="10" height="10" fill="${COLORS[id] ?? "#444"}"/><text x="${left + i * 115 + 14}" y="53" font-size="11">${esc(label(id))}</text>`,
    )
    .join("");
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">
<rect width="100%" height="100%" fill="#fff"/>
<text x="10" y="20" font-size="14" font-weight="bold">Throughput relative to raw node:http (same round, median of ${meta.rounds}; higher is better)</text>
<text x="10" y="36" font-size="10">${esc(`${meta.date} · ${meta.machine}`)}</text>
${legend}
${axis}${body}</svg>
`;
}
