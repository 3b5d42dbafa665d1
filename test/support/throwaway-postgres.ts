// A PostgreSQL server of a test's own, on a free port with its data in a temporary directory, that the test
// may stop, restart or kill at will: the shared server on 5432 is never touched. Runs as the `postgres` OS
// user (initdb and pg_ctl refuse root), from the PostgreSQL 15 binaries Debian installs.
import { execFile } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./free-port.js";

const run = promisify(execFile);

/** Where Debian installs the PostgreSQL 15 server binaries (override with TENON_PG_BIN). */
export const postgresBin = process.env.TENON_PG_BIN ?? "/usr/lib/postgresql/15/bin";

/** A throwaway PostgreSQL server. */
export interface ThrowawayPostgres {
  /** The port it listens on, on 127.0.0.1. */
  readonly port: number;
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication). */
  readonly url: string;
  /** The URL of another database on it. */
  urlOf(database: string): string;
  /** Stops it: "fast" disconnects every session and rolls back (a clean shutdown), "immediate" aborts like a crash. */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Stops it and removes its data directory. */
  close(): Promise<void>;
}

/** Runs a command as the `postgres` OS user (or as the current user when that is not root). */
async function asPostgres(command: string, args: readonly string[]): Promise<string> {
  const asRoot = userInfo().uid === 0;
  const [file, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, [...args]];
  const { stdout } = await run(file, argv, { timeout: 60_000 });
  return stdout;
}

/** Why a throwaway PostgreSQL cannot be started here, or undefined when it can. */
export async function throwawayPostgresUnavailable(): Promise<string | undefined> {
  try {
    await run(join(postgresBin, "pg_ctl"), ["--version"]);
    return undefined;
  } catch (error) {
    return `the PostgreSQL server binaries are not in ${postgresBin} (${(error as Error).message})`;
  }
}

/** Creates a cluster (initdb, trust authentication, fsync off) and starts it on a free port. */
export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const directory = mkdtempSync("/tmp/tenon-pg-");
  const data = join(directory, "data");
  if (userInfo().uid === 0) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    const { stdout: group } = await run("id", ["-g", "postgres"]);
    chownSync(directory, Number(stdout.trim()), Number(group.trim()));
  }
  await asPostgres(join(postgresBin, "initdb"), ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"]);
  const port = await freePort();
  const pgCtl = join(postgresBin, "pg_ctl");
  const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=50 -c shared_buffers=16MB`;
  const start = async (): Promise<void> => {
    await asPostgres(pgCtl, ["-D", data, "-o", options, "-l", join(directory, "server.log"), "-w", "-t", "60", "start"]);
  };
  let running = false;
  const server: ThrowawayPostgres = {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    urlOf: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async stop(mode = "fast") {
      if (!running) return;
      await asPostgres(pgCtl, ["-D", data, "-m", mode, "-w", "-t", "60", "stop"]);
      running = false;
    },
    async start() {
      if (running) return;
      await start();
      running = true;
    },
    async close() {
      try {
        await server.stop("immediate");
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    },
  };
  try {
    await server.start();
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  return server;
}
