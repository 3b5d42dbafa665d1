// Runs HAProxy (the Debian package) in the foreground on a configuration file, with the environment that
// file reads, and stops it by its own pid.
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
