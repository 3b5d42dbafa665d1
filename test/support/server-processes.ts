// The server processes (database nodes, proxies) that tests and scripts start: each runs in a process group
// of its own, so that stopping it also stops what it started (a Galera node's state-transfer rsync daemon),
// and every group still alive when this Node process exits is killed, also when a test failed or threw.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

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
export function startServer(
  command: string,
  args: readonly string[],
  options: { outlive?: boolean; cwd?: string; uid?: number; gid?: number } = {},
): ServerProcess {
  const child = spawn(command, args, { detached: true, stdio: "ignore", cwd: options.cwd, uid: options.uid, gid: options.gid });
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

/** The arguments a process was started with (empty when it is gone or unreadable). */
export function commandLineOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8")
      .split("\0")
      .filter((arg) => arg !== "");
  } catch {
    return [];
  }
}

/** True when one of `args` is `directory` or a path under it (also after an `=`, as in `--datadir=<directory>/node1`). */
export function namesDirectory(args: readonly string[], directory: string): boolean {
  return args.some((arg) => {
    for (let at = arg.indexOf(directory); at >= 0; at = arg.indexOf(directory, at + 1)) {
      const after = arg[at + directory.length];
      if (after === undefined || after === "/") return true;
    }
    return false;
  });
}

/** Every process id on this machine with its parent's id. */
function processTable(): Map<number, number> {
  const table = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The parent is the 4th field, after the command name in parentheses (which may hold spaces).
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      table.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  return table;
}

/**
 * Kills (SIGKILL) every process whose command line names `directory`, and their descendants (PostgreSQL's
 * workers rename themselves and would not be found by name), except `spared` (this process by default).
 * Answers the process ids killed. This is what stops servers left behind by a test run that was killed:
 * only processes started for that directory can match, whatever their pid.
 */
export function killProcessesNaming(directory: string, spared: readonly number[] = [process.pid]): number[] {
  const table = processTable();
  const doomed = new Set<number>();
  for (const pid of table.keys()) if (!spared.includes(pid) && namesDirectory(commandLineOf(pid), directory)) doomed.add(pid);
  for (let grown = true; grown; ) {
    grown = false;
    for (const [pid, parent] of table) {
      if (doomed.has(parent) && !doomed.has(pid) && !spared.includes(pid)) {
        doomed.add(pid);
        grown = true;
      }
    }
  }
  for (const pid of doomed) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  return [...doomed];
}
