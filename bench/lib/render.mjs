// Re-renders the chart and the Markdown table of a results file without measuring again:
// node lib/render.mjs results/latest.json
import fs from "node:fs";
import { markdown, svgChart } from "./report.mjs";

const file = process.argv[2] ?? new URL("../results/latest.json", import.meta.url).pathname;
const { meta, summary } = JSON.parse(fs.readFileSync(file, "utf8"));
fs.writeFileSync(file.replace(/\.json$/, ".svg"), svgChart(summary, meta));
fs.writeFileSync(file.replace(/\.json$/, ".md"), markdown(summary, meta));
console.log(`rendered ${file.replace(/\.json$/, ".svg")} and .md`);
