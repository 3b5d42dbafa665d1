// A database server of a test's own, on a free port with its data in an owned temporary directory
// (owned-directory.ts), that the test may stop, restart or kill at will: the shared servers on 5432 and 3306 are
// never touched. The lifecycle is the same for every engine; throwaway-postgres.ts and throwaway-mariadb.ts say
// only how to initialize, run and reach theirs.
import { spawnSync } from "node:child_process";
import { chownSync, readFileSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.js";
import { cleanUpDirectory, createOwnedDirectory, type OwnedPrefix } from "./owned-directory.js";
import { type ServerProcess, startServer } from "./server-processes.js";

/** A throwaway database server. */
export interface ThrowawayServer {
  /** The port it listens on, on 127.0.0.1. */
  readonly port: number;
  /** The URL of its default database (no database on MariaDB). */
  readonly url: string;
  /** The URL of another database on it. */
  urlOf(database: string): string;
  /** Stops it: "fast" is a clean shutdown that ends every session, "immediate" aborts like a crash. */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** Starts it again on the same port and data; resolves when it accepts connections. */
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}

/** An OS user's ids, to run a program as that user. */
export interface OsUser {
  readonly uid: number;
  readonly gid: number;
}

/** What one engine's throwaway server is made of. */
export interface ThrowawayEngine {
  /** The engine's name, for messages. */
  readonly name: string;
  /** The directory's prefix (also what the sweep of orphans looks for). */
  readonly prefix: OwnedPrefix;
  /** The OS user that owns the directory and runs the server when this process is root. */
  readonly osUser: string;
  /** The server's log file inside the directory, quoted when it does not start. */
  readonly logFile: string;
  /** Creates the data directory `data` (under `directory`); `as` is the OS user to run the tool as, if any. */
  initialize(directory: string, data: string, as: OsUser | undefined): Promise<void>;
  /** The server's command line, in the foreground; `as` as for `initialize`. */
  command(
    directory: string,
    data: string,
    port: number,
    as: OsUser | undefined,
  ): { readonly command: string; readonly args: string[]; readonly runAs?: OsUser };
  /** The signal to its main process for a clean stop and for a crash. */
  readonly signals: { readonly fast: NodeJS.Signals; readonly immediate: NodeJS.Signals };
  /** Resolves when a client can connect on `port`, rejects otherwise. */
  probe(port: number): Promise<void>;
  /** `<url of database>` for a port. */
  url(port: number, database: string): string;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The ids of an OS user, when this process is root and may run programs as that user. */
function osUser(name: string): OsUser | undefined {
  if (userInfo().uid !== 0) return undefined;
  const uid = spawnSync("id", ["-u", name], { encoding: "utf8" });
  const gid = spawnSync("id", ["-g", name], { encoding: "utf8" });
  if (uid.status !== 0 || gid.status !== 0) throw new Error(`There is no ${name} OS user to run the server as.`);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** Creates a server of `engine` (data directory, free port) and starts it. */
export async function startThrowawayServer(engine: ThrowawayEngine): Promise<ThrowawayServer> {
  const directory = createOwnedDirectory(engine.prefix);
  const data = join(directory, "data");
  let port = 0;
  let running: ServerProcess | undefined;

  const tailOfLog = (): string => {
    try {
      return readFileSync(join(directory, engine.logFile), "utf8").split("\n").slice(-15).join("\n");
    } catch {
      return "(no log)";
    }
  };

  const stop = async (mode: "fast" | "immediate" = "fast"): Promise<void> => {
    const server = running;
    running = undefined;
    if (server === undefined || !server.running()) return;
    try {
      process.kill(server.pid, mode === "fast" ? engine.signals.fast : engine.signals.immediate);
    } catch {
      // Gone meanwhile.
    }
    let timer: NodeJS.Timeout | undefined;
    const exited = await Promise.race([
      server.exited.then(() => true),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), 60_000);
      }),
    ]);
    clearTimeout(timer);
    // Whatever of its group is left (or all of it, after a shutdown that took too long).
    try {
      process.kill(-server.pid, "SIGKILL");
    } catch {
      // Nothing left.
    }
    if (!exited) await server.exited;
  };

  const start = async (): Promise<void> => {
    if (running?.running() === true) return;
    const as = osUser(engine.osUser);
    const { command, args, runAs } = engine.command(directory, data, port, as);
    // In its own directory: the OS user it runs as may not be allowed into this process's working directory.
    const server = startServer(command, args, { uid: runAs?.uid, gid: runAs?.gid, cwd: directory });
    running = server;
    const deadline = Date.now() + 60_000;
    let last = "";
    for (;;) {
      if (!server.running()) {
        running = undefined;
        throw new Error(`The throwaway ${engine.name} exited while starting (${await server.exited}). Its log ends:\n${tailOfLog()}`);
      }
      try {
        await engine.probe(port);
        return;
      } catch (error) {
        last = (error as Error).message;
      }
      if (Date.now() > deadline) {
        await stop("immediate");
        throw new Error(`The throwaway ${engine.name} on port ${port} did not accept connections (${last}). Its log ends:\n${tailOfLog()}`);
      }
      await sleep(100);
    }
  };

  try {
    const as = osUser(engine.osUser);
    if (as !== undefined) chownSync(directory, as.uid, as.gid);
    await engine.initialize(directory, data, as);
    port = await freePort();
    await start();
  } catch (error) {
    cleanUpDirectory(directory);
    throw error;
  }
  return {
    port,
    url: engine.url(port, ""),
    urlOf: (database) => engine.url(port, database),
    stop,
    start,
    async close() {
      try {
        await stop("immediate");
      } finally {
        cleanUpDirectory(directory);
      }
    },
  };
}
