// The server processes (database nodes, proxies) that tests and scripts start: each runs in a process group
// of its own, so that stopping it also stops what it started (a Galera node's state-transfer rsync daemon),
// and every group still alive when this Node process exits is killed, also when a test failed or threw.
import { spawn } from "node:child_process";

/** A server started by `startServer`. */
export interface ServerProcess {
  /** Its process id (also its process group id). */
  readonly pid: number;
  /** Resolves with the exit code (or the signal's name) once it has exited. */
  readonly exited: Promise<number | string>;
  /** Whether it is still running. */
  running(): boolean;
}

const alive = new Set<number>();
let hooked = false;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/** Kills (SIGKILL) every server of this process still running: the last line of defence at exit. */
export function killAllServers(): void {
  for (const pid of alive) killGroup(pid, "SIGKILL");
  alive.clear();
}

/**
 * Starts `command` in a process group of its own with its output discarded (servers write their own log
 * files). With `outlive`, it keeps running after this process exits (`scripts/galera.sh up`).
 */
export function startServer(command: string, args: readonly string[], options: { outlive?: boolean; cwd?: string } = {}): ServerProcess {
  const child = spawn(command, args, { detached: true, stdio: "ignore", cwd: options.cwd });
  if (child.pid === undefined) throw new Error(`${command} could not be started.`);
  const pid = child.pid;
  let exitedYet = false;
  const exited = new Promise<number | string>((resolve) => {
    child.once("error", (error) => {
      exitedYet = true;
      alive.delete(pid);
      resolve(error.message);
    });
    child.once("exit", (code, signal) => {
      exitedYet = true;
      alive.delete(pid);
      resolve(code ?? signal ?? "unknown");
    });
  });
  if (options.outlive) {
    child.unref();
  } else {
    alive.add(pid);
    if (!hooked) {
      hooked = true;
      process.once("exit", killAllServers);
    }
  }
  return { pid, exited, running: () => !exitedYet };
}

/** Whether a process id is alive (for servers recorded in a state file by another process). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stops a process group: SIGTERM, then SIGKILL after `graceMs`. Waits until the leader is gone (polling, so
 * that it also works for a group this process did not start).
 */
export async function stopGroup(pid: number, graceMs = 10_000): Promise<void> {
  killGroup(pid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (processAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  // Also the group's other members (an rsync daemon of a state transfer outlives its node otherwise).
  killGroup(pid, "SIGKILL");
  while (processAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 50));
  alive.delete(pid);
}
