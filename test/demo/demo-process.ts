// Runs the demo application as a child process (`node dist/examples/demo/main.js`), the way `npm start` does
// after its build, and reads the port it reports.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The compiled demo entry point. */
export const demoMain = fileURLToPath(new URL("../../examples/demo/main.js", import.meta.url));

/** A running demo child process. */
export interface DemoProcess {
  /** The port it listens on, as it printed it. */
  readonly port: number;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Sends a signal and answers the exit code (null when killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the demo on an ephemeral port with the given environment; rejects when it does not come up in time. */
export function startDemo(env: Record<string, string>, timeoutMs = 60000): Promise<DemoProcess> {
  const child: ChildProcess = spawn(process.execPath, [demoMain], {
    env: { ...process.env, PORT: "0", METRICS_PORT: "0", DEMO_RESET: "", DATABASE_URL: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code, signal) => {
      text += `\n[the demo exited with code ${code}, signal ${signal}]\n`;
      resolve(code);
    }),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`The demo did not report its port within ${timeoutMs} ms. Output:\n${text}`));
    }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      text += chunk.toString("utf8");
      const match = /Tenon demo listening on http:\/\/127\.0\.0\.1:(\d+)\/api/.exec(text);
      if (match === null) return;
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.stdout?.on("data", (more: Buffer) => (text += more.toString("utf8")));
      resolve({
        port: Number(match[1]),
        output: () => text,
        async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<number | null> {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          const killer = setTimeout(() => child.kill("SIGKILL"), 30000);
          try {
            return await exited;
          } finally {
            clearTimeout(killer);
          }
        },
      });
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`The demo exited with code ${code} before listening. Output:\n${text}`));
    });
  });
}
