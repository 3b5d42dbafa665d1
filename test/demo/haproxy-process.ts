// Runs HAProxy (the Debian package) in the foreground on a configuration file, with the environment that
// file reads, and stops it by its own pid.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ask, sleep } from "../http/http-test-client.js";

/** The HAProxy example of the repository. */
export const haproxyExample = fileURLToPath(new URL("../../../examples/haproxy/haproxy.cfg", import.meta.url));

/** A running HAProxy. */
export interface HaproxyProcess {
  output(): string;
  stop(): Promise<void>;
}

/** Starts `haproxy -db -f config` and waits until `probePath` answers 200 on `port`. */
export async function startHaproxy(config: string, env: Record<string, string>, port: number, probePath: string): Promise<HaproxyProcess> {
  const child = spawn("haproxy", ["-db", "-f", config], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let text = "";
  child.stdout.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let failedToStart: Error | undefined;
  child.once("error", (error) => (failedToStart = error));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  const begun = Date.now();
  for (;;) {
    if (failedToStart !== undefined) throw new Error(`HAProxy could not be started: ${failedToStart.message}`);
    if (child.exitCode !== null) throw new Error(`HAProxy exited with code ${child.exitCode}:\n${text}`);
    try {
      if ((await ask(port, probePath)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() - begun > 15000) {
      await stop();
      throw new Error(`HAProxy did not answer on port ${port}:\n${text}`);
    }
    await sleep(50);
  }
  return { output: () => text, stop };
}

/** A statistics page on 127.0.0.1:`port` (`/stats`, `/stats;csv`), to append to a configuration. */
export function statsSection(port: number): string {
  return `\nlisten stats\n    bind 127.0.0.1:${port}\n    stats enable\n    stats uri /stats\n`;
}

/** The rows of the `tenon` backend in the statistics, with the CSV's header. */
async function backendRows(statsPort: number): Promise<{ header: string[]; rows: string[][] }> {
  const csv = (await ask(statsPort, "/stats;csv")).text.split("\n");
  const header = csv[0].replace(/^# /, "").split(",");
  return {
    header,
    rows: csv
      .slice(1)
      .map((line) => line.split(","))
      .filter((fields) => fields[0] === "tenon"),
  };
}

/** HAProxy's own counters of the backend: retries and redispatches. */
export async function backendCounters(statsPort: number): Promise<{ retries: number; redispatches: number }> {
  const { header, rows } = await backendRows(statsPort);
  const backend = rows.find((fields) => fields[1] === "BACKEND");
  assert.ok(backend !== undefined, `no backend row in HAProxy's statistics`);
  return { retries: Number(backend[header.indexOf("wretr")]), redispatches: Number(backend[header.indexOf("wredis")]) };
}

/**
 * Waits until HAProxy reports both servers of the backend UP (after their `rise` good checks). A step that
 * needs a server in rotation waits for HAProxy to say so, never a fixed time: a busy machine only waits longer.
 */
export async function bothServersUp(statsPort: number): Promise<void> {
  const begun = Date.now();
  for (;;) {
    const { header, rows } = await backendRows(statsPort);
    const statuses = Object.fromEntries(
      rows
        .filter((fields) => fields[1] !== "BACKEND" && fields[1] !== "FRONTEND")
        .map((fields) => [fields[1], fields[header.indexOf("status")]]),
    );
    if (Object.keys(statuses).length === 2 && Object.values(statuses).every((status) => status === "UP")) return;
    if (Date.now() - begun > 60000) throw new Error(`HAProxy does not report both servers up: ${JSON.stringify(statuses)}`);
    await sleep(100);
  }
}
