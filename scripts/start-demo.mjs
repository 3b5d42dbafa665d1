// `npm start`: builds Tenon and its demo when needed, then runs the demo application (examples/demo).
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";

const root = new URL("..", import.meta.url).pathname;
const entry = `${root}dist/examples/demo/main.js`;
const build = spawnSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, "-p", `${root}tsconfig.json`], { stdio: "inherit" });
if (build.status !== 0) {
  console.error("npm start: the TypeScript build failed; the demo cannot start.");
  process.exit(build.status ?? 1);
}
if (!existsSync(entry)) {
  console.error("npm start: the demo is not built yet (dist/examples/demo/main.js is missing).");
  process.exit(1);
}
await import(entry);
