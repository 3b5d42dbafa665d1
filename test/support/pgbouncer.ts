// PgBouncer in transaction mode in front of a PostgreSQL server, on a free port, for the scale-out tests:
// its configuration, log and pid file live in one owned temporary directory (owned-directory.ts), it runs as
// the `postgres` OS user (PgBouncer refuses to run as root), and stopping it removes the directory.
import { spawnSync } from "node:child_process";
import { chownSync, readFileSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { userInfo } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.js";
import { cleanUpDirectory, createOwnedDirectory } from "./owned-directory.js";
import { type ServerProcess, startServer, stopGroup } from "./server-processes.js";

/** A running PgBouncer. */
export interface PgBouncer {
  /** The port it listens on. */
  readonly port: number;
  /** Its owned temporary directory (configuration, log, pid file). */
  readonly directory: string;
  /** `postgres://<user>@127.0.0.1:<port>/<database>`: the server through PgBouncer. */
  url(database: string): string;
  /** Stops it at once (SIGTERM: PgBouncer's immediate shutdown, every client and server connection cut). */
  kill(): Promise<void>;
  /** Starts it again on the same port after `kill` (nothing when it runs); resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it at once and starts it again on the same port; resolves once it accepts connections. */
  restart(): Promise<void>;
  /** Stops it and removes its directory. */
  stop(): Promise<void>;
}

/** Options of `startPgBouncer`. */
export interface PgBouncerOptions {
  /** The PostgreSQL server behind it (default `postgres://postgres@127.0.0.1:5432/`). */
  readonly server?: string;
  /** Server connections per database and user (default 10). */
  readonly poolSize?: number;
}

/** Answers why PgBouncer cannot be started here, or undefined when it can. */
export function pgBouncerUnavailable(): string | undefined {
  if (spawnSync("sh", ["-c", "command -v pgbouncer"], { stdio: "ignore" }).status !== 0) return "pgbouncer is not installed";
  if (userInfo().uid !== 0) return "PgBouncer runs as the postgres OS user, which needs root to start it";
  if (spawnSync("id", ["-u", "postgres"], { stdio: "ignore" }).status !== 0) return "there is no postgres OS user to run PgBouncer as";
  return undefined;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * Starts PgBouncer: every database name is passed through to the server (`* = host=... port=...`), pool mode
 * transaction, trust authentication (the test server trusts loopback), and the startup parameters that
 * node-postgres sends and PgBouncer cannot track (`options`, `statement_timeout`, `extra_float_digits`)
 * ignored: behind a transaction pooler they belong in the role's or database's settings.
 */
export async function startPgBouncer(options: PgBouncerOptions = {}): Promise<PgBouncer> {
  const server = new URL(options.server ?? "postgres://postgres@127.0.0.1:5432/");
  const user = decodeURIComponent(server.username || "postgres");
  const directory = createOwnedDirectory("tenon-pgbouncer-");
  const port = await freePort();
  const uid = Number(spawnSync("id", ["-u", "postgres"], { encoding: "utf8" }).stdout.trim());
  const gid = Number(spawnSync("id", ["-g", "postgres"], { encoding: "utf8" }).stdout.trim());
  chownSync(directory, uid, gid);
  const configuration = join(directory, "pgbouncer.ini");
  writeFileSync(join(directory, "userlist.txt"), `"${user}" ""\n`);
  writeFileSync(
    configuration,
    [
      "[databases]",
      `* = host=${server.hostname} port=${server.port || 5432}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${join(directory, "userlist.txt")}`,
      "pool_mode = transaction",
      `default_pool_size = ${options.poolSize ?? 10}`,
      "max_client_conn = 500",
      "ignore_startup_parameters = extra_float_digits, options, statement_timeout",
      `logfile = ${join(directory, "pgbouncer.log")}`,
      `pidfile = ${join(directory, "pgbouncer.pid")}`,
      "",
    ].join("\n"),
  );
  let child: ServerProcess | undefined;
  const start = async (): Promise<void> => {
    child = startServer("pgbouncer", ["-u", "postgres", configuration]);
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      if (!child.running()) break;
      if (await listening(port)) return;
      await sleep(100);
    }
    let log = "";
    try {
      log = readFileSync(join(directory, "pgbouncer.log"), "utf8").split("\n").slice(-15).join("\n");
    } catch {
      log = "(no log)";
    }
    throw new Error(`PgBouncer did not start on port ${port}. Its log ends:\n${log}`);
  };
  const kill = async (): Promise<void> => {
    if (child !== undefined) await stopGroup(child.pid, 5000);
    child = undefined;
  };
  try {
    await start();
  } catch (error) {
    await kill();
    cleanUpDirectory(directory);
    throw error;
  }
  return {
    port,
    directory,
    url: (database) => `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/${database}`,
    kill,
    async start() {
      if (child === undefined || !child.running()) await start();
    },
    async restart() {
      await kill();
      await start();
    },
    async stop() {
      try {
        await kill();
      } finally {
        cleanUpDirectory(directory);
      }
    },
  };
}

/**
 * A PgBouncer started in front of `server`, or the reason there is none: `serverUnreachable` (the server's own
 * reason, checked by the caller), PgBouncer not installed, or its start failing. The caller stops it.
 */
export async function pgBouncerOrReason(server: string, serverUnreachable: string | undefined): Promise<PgBouncer | string> {
  const reason = serverUnreachable ?? pgBouncerUnavailable();
  if (reason !== undefined) return reason;
  try {
    return await startPgBouncer({ server });
  } catch (error) {
    return `PgBouncer did not start: ${(error as Error).message}`;
  }
}
