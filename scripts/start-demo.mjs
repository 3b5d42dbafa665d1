// `npm start`: builds Tenon and its demo, then runs the demo application (examples/demo).
// With WORKERS=N the demo forks N node:cluster workers, and each of them runs this script again: only the
// primary builds (before it forks any worker), so that no worker rewrites dist/ while another imports from it.
import cluster from "node:cluster";
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";

const root = new URL("..", import.meta.url).pathname;
const entry = `${root}dist/examples/demo/main.js`;
if (cluster.isPrimary) {
  const build = spawnSync(process.execPath, [`${root}scripts/build.mjs`], { stdio: "inherit" });
  if (build.status !== 0) {
    console.error("npm start: the build failed; the demo cannot start.");
    process.exit(build.status ?? 1);
  }
}
if (!existsSync(entry)) {
  console.error("npm start: the demo is not built yet (dist/examples/demo/main.js is missing).");
  process.exit(1);
}
await import(entry);
