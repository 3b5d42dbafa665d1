// The temporary directory of each server a test starts (a Galera or Patroni cluster, a throwaway PostgreSQL, MariaDB or Redis,
// PgBouncer, a copy of the repository that `npm start` runs in) records the process that owns it. A test run killed outright (SIGKILL, a CI time limit) runs no
// exit handler, so two things make sure its servers do not linger: a small watchdog per directory that
// cleans up once its owner is gone, and a sweep, at every start of a server, of the directories whose owner is
// gone. Cleaning up kills only processes whose command line names that directory, then removes it.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { killProcessesNaming } from "./server-processes.js";

/** The prefixes of the directories this module creates and sweeps. */
export type OwnedPrefix =
  | "tenon-galera-"
  | "tenon-patroni-"
  | "tenon-pg-"
  | "tenon-mariadb-"
  | "tenon-pgbouncer-"
  | "tenon-redis-"
  | "tenon-npm-start-";

const prefixes: readonly OwnedPrefix[] = [
  "tenon-galera-",
  "tenon-patroni-",
  "tenon-pg-",
  "tenon-mariadb-",
  "tenon-pgbouncer-",
  "tenon-redis-",
  "tenon-npm-start-",
];

/** The file in each directory that names its owner. */
const ownerFileName = ".tenon-owner.json";

/** Who owns a directory: a process (identified by pid and start time, so that a reused pid is no owner), or nobody (kept). */
interface Owner {
  readonly pid: number;
  /** The owner's start time in clock ticks since boot (field 22 of /proc/<pid>/stat). */
  readonly started: number;
  /** Kept on purpose after its owner exits (`scripts/galera.sh up`): never swept, `galera.sh down` removes it. */
  readonly kept: boolean;
}

/** A process's start time in clock ticks since boot, or undefined when it is gone. */
function startTimeOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
  } catch {
    return undefined;
  }
}

function ownerOf(directory: string): Owner | undefined {
  try {
    return JSON.parse(readFileSync(join(directory, ownerFileName), "utf8")) as Owner;
  } catch {
    return undefined;
  }
}

/** True when the directory's owner has exited (a directory without an owner file is someone else's: never orphaned). */
export function isOrphaned(directory: string): boolean {
  const owner = ownerOf(directory);
  if (owner === undefined || owner.kept) return false;
  return startTimeOf(owner.pid) !== owner.started;
}

/** Kills every process started for `directory` (its command line names it) and removes the directory. */
export function cleanUpDirectory(directory: string): number[] {
  const killed = killProcessesNaming(directory);
  rmSync(directory, { recursive: true, force: true });
  return killed;
}

/**
 * Cleans up every directory of these prefixes in `parent` (the temporary directory) whose owner process is
 * gone: the servers of a test run that was killed. Answers the directories removed. Directories without an
 * owner file (other tools, older runs) and those of live owners are left alone.
 */
export function sweepOrphans(parent = tmpdir()): string[] {
  const swept: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(parent);
  } catch {
    return swept;
  }
  for (const entry of entries) {
    if (!prefixes.some((prefix) => entry.startsWith(prefix))) continue;
    const directory = join(parent, entry);
    if (!isOrphaned(directory)) continue;
    cleanUpDirectory(directory);
    swept.push(directory);
  }
  return swept;
}

/** The compiled watchdog's cleanup entry point (this module, run as a script). */
const thisModule = fileURLToPath(import.meta.url);

/**
 * Starts the watchdog of `directory`: a shell loop (no Node process idling for the whole run) that checks once
 * a second whether `owner` still runs and the directory still exists; when the owner is gone first, it runs
 * this module's cleanup for the directory. It names the directory on its command line, so the normal cleanup
 * ends it too.
 */
function startWatchdog(directory: string, owner: number): void {
  const loop = 'while kill -0 "$1" 2>/dev/null && [ -d "$2" ]; do sleep 1; done; [ -d "$2" ] && exec "$3" "$4" "$2"';
  const child = spawn("sh", ["-c", loop, "tenon-watchdog", String(owner), directory, process.execPath, thisModule], {
    detached: true,
    stdio: "ignore",
  });
  child.unref();
}

/** Options of `createOwnedDirectory`. */
export interface OwnedDirectoryOptions {
  /** The servers are meant to outlive this process (`scripts/galera.sh up`): no watchdog, never swept. */
  readonly outlive?: boolean;
}

/**
 * Creates `<tmpdir>/<prefix>XXXXXX` owned by this process, after sweeping the orphans of earlier runs, and
 * (unless `outlive`) starts its watchdog.
 */
export function createOwnedDirectory(prefix: OwnedPrefix, options: OwnedDirectoryOptions = {}): string {
  sweepOrphans();
  const directory = mkdtempSync(join(tmpdir(), prefix));
  const owner: Owner = { pid: process.pid, started: startTimeOf(process.pid) ?? 0, kept: options.outlive === true };
  writeFileSync(join(directory, ownerFileName), `${JSON.stringify(owner)}\n`);
  if (!owner.kept) startWatchdog(directory, process.pid);
  return directory;
}

// Run as a script by a watchdog: `node owned-directory.js <directory>` cleans that directory up.
if (process.argv[1] === thisModule && process.argv[2] !== undefined && existsSync(process.argv[2])) {
  cleanUpDirectory(process.argv[2]);
}
