// What bench/scaling.mjs and bench/replicas.mjs share: the demo started as a process (one, or a primary and its
// workers) with the pids whose CPU is the server's, the keep-alive load generator run as its own process, and
// the median of a round's figures.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
/** The compiled demo (`npm run build` first). */
export const demoMain = path.resolve(here, "..", "..", "dist", "examples", "demo", "main.js");

/** The median of some numbers. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Starts the demo with `env` (WORKERS among it, or not) and resolves its port and the pids to measure (the
 * primary and its workers); `stop()` sends SIGTERM and fails when the exit code is not 0.
 */
export async function startDemoProcess(env, workers) {
  const child = spawn(process.execPath, [demoMain], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let text = "";
  child.stdout.on("data", (d) => (text += d));
  child.stderr.on("data", (d) => (text += d));
  const exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  const began = Date.now();
  const ready = () => (workers > 1 ? /tenon: primary \d+ serves/.test(text) : /listening on http:\/\/127\.0\.0\.1:(\d+)/.test(text));
  while (!ready()) {
    if (child.exitCode !== null || Date.now() - began > 60000) throw new Error(`the demo did not start:\n${text}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    port: Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(text)[1]),
    pids: [child.pid, ...[...text.matchAll(/tenon: worker (\d+) serving/g)].map((m) => Number(m[1]))],
    async stop() {
      child.kill("SIGTERM");
      const code = await exited;
      if (code !== 0) throw new Error(`the demo exited with ${code}:\n${text}`);
    },
  };
}

/** Runs bench/lib/keepalive-load.mjs as its own process and resolves what it printed, with its pid. */
export function keepaliveLoad({ port, connections, seconds, requests }) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(here, "keepalive-load.mjs"), JSON.stringify({ port, connections, seconds, requests })],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let text = "";
    child.stdout.on("data", (d) => (text += d));
    child.once("exit", () => {
      const m = /BENCH_JSON (\{.*\})/.exec(text);
      if (m) resolve({ ...JSON.parse(m[1]), loaderPid: child.pid });
      else reject(new Error(`the load generator printed no result: ${text}`));
    });
  });
}
