// A MariaDB server of a test's own, on a free port with its data in a temporary directory, that the test may
// stop, restart or kill at will: the shared server on 3306 is never touched. Started with --skip-grant-tables
// (root without a password from 127.0.0.1) and without binary log, as the `mysql` OS user.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createConnection } from "mariadb";
import { freePort } from "./free-port.js";

const run = promisify(execFile);

/** A throwaway MariaDB server. */
export interface ThrowawayMariaDb {
  /** The port it listens on, on 127.0.0.1. */
  readonly port: number;
  /** `mariadb://root@127.0.0.1:<port>/` (no database). */
  readonly url: string;
  /** The URL of a database on it. */
  urlOf(database: string): string;
  /** Stops it: "fast" is a clean shutdown (SIGTERM), "immediate" kills it like a crash (SIGKILL). */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** Starts it again on the same port and data; resolves when it accepts connections. */
  start(): Promise<void>;
  /** Stops it and removes its data directory. */
  close(): Promise<void>;
}

/** Why a throwaway MariaDB cannot be started here, or undefined when it can. */
export async function throwawayMariaDbUnavailable(): Promise<string | undefined> {
  try {
    await run("mariadbd", ["--version"]);
    // mariadb-install-db has no option that exits 0 without installing; ask the shell where it is.
    await run("sh", ["-c", "command -v mariadb-install-db"]);
    return undefined;
  } catch (error) {
    return `mariadbd or mariadb-install-db is not installed (${(error as Error).message})`;
  }
}

/** Waits until the server at `port` accepts a connection, at most `timeoutMs`. */
async function waitUntilReady(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`mariadbd exited (${child.exitCode ?? child.signalCode})`);
    try {
      const connection = await createConnection({ host: "127.0.0.1", port, user: "root", connectTimeout: 1000 });
      await connection.end();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`mariadbd on port ${port} did not accept connections: ${(error as Error).message}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Creates a data directory (mariadb-install-db) and starts mariadbd on a free port. */
export async function startThrowawayMariaDb(): Promise<ThrowawayMariaDb> {
  const directory = mkdtempSync("/tmp/tenon-mariadb-");
  const data = join(directory, "data");
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const { stdout } = await run("id", ["-u", "mysql"]);
    const { stdout: group } = await run("id", ["-g", "mysql"]);
    chownSync(directory, Number(stdout.trim()), Number(group.trim()));
  }
  const user = asRoot ? ["--user=mysql"] : [];
  await run(
    "mariadb-install-db",
    // Its own tmpdir: bootstraps running at the same time in /tmp (other test runs) removed each other's temporary tables.
    ["--no-defaults", ...user, `--datadir=${data}`, `--tmpdir=${directory}`, "--auth-root-authentication-method=normal", "--skip-test-db"],
    {
      timeout: 120_000,
    },
  );
  const port = await freePort();
  let child: ChildProcess | undefined;
  const server: ThrowawayMariaDb = {
    port,
    url: `mariadb://root@127.0.0.1:${port}/`,
    urlOf: (database) => `mariadb://root@127.0.0.1:${port}/${database}`,
    async stop(mode = "fast") {
      const running = child;
      if (running === undefined) return;
      child = undefined;
      if (running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((resolve) => running.once("exit", resolve));
      running.kill(mode === "fast" ? "SIGTERM" : "SIGKILL");
      await exited;
    },
    async start() {
      if (child !== undefined) return;
      const started = spawn(
        "mariadbd",
        [
          "--no-defaults",
          ...user,
          `--datadir=${data}`,
          `--tmpdir=${directory}`,
          `--port=${port}`,
          "--bind-address=127.0.0.1",
          `--socket=${join(directory, "mysqld.sock")}`,
          `--pid-file=${join(directory, "mysqld.pid")}`,
          `--log-error=${join(directory, "error.log")}`,
          "--skip-grant-tables",
          "--skip-log-bin",
          "--innodb-buffer-pool-size=32M",
          "--innodb-log-file-size=16M",
          "--innodb-flush-log-at-trx-commit=2",
          "--innodb-buffer-pool-dump-at-shutdown=0",
          "--innodb-buffer-pool-load-at-startup=0",
        ],
        { stdio: "ignore" },
      );
      child = started;
      try {
        await waitUntilReady(port, started, 60_000);
      } catch (error) {
        await server.stop("immediate");
        throw error;
      }
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
