// A MariaDB server of a test's own (throwaway-server.ts): mariadb-install-db, then mariadbd in the foreground on
// a free port with --skip-grant-tables (root without a password from 127.0.0.1) and without binary log, as the
// `mysql` OS user. The shared server on 3306 is never touched.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { createConnection } from "mariadb";
import { startThrowawayServer, type ThrowawayEngine, type ThrowawayServer } from "./throwaway-server.js";

const run = promisify(execFile);

/** A throwaway MariaDB server; `url` names no database. */
export type ThrowawayMariaDb = ThrowawayServer;

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

const mariaDbEngine: ThrowawayEngine = {
  name: "MariaDB",
  prefix: "tenon-mariadb-",
  osUser: "mysql",
  logFile: "error.log",
  async initialize(directory, data, as) {
    const user = as === undefined ? [] : ["--user=mysql"];
    // Its own tmpdir: bootstraps running at the same time in /tmp (other test runs) removed each other's temporary tables.
    await run(
      "mariadb-install-db",
      [
        "--no-defaults",
        ...user,
        `--datadir=${data}`,
        `--tmpdir=${directory}`,
        "--auth-root-authentication-method=normal",
        "--skip-test-db",
      ],
      { timeout: 120_000 },
    );
  },
  // mariadbd drops to the mysql user by itself (--user), so it is started as this process's user.
  command: (directory, data, port, as) => ({
    command: "mariadbd",
    args: [
      "--no-defaults",
      ...(as === undefined ? [] : ["--user=mysql"]),
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
  }),
  signals: { fast: "SIGTERM", immediate: "SIGKILL" },
  async probe(port) {
    const connection = await createConnection({ host: "127.0.0.1", port, user: "root", connectTimeout: 1000 });
    await connection.end();
  },
  url: (port, database) => `mariadb://root@127.0.0.1:${port}/${database}`,
};

/** Creates a data directory and starts mariadbd on a free port. */
export function startThrowawayMariaDb(): Promise<ThrowawayMariaDb> {
  return startThrowawayServer(mariaDbEngine);
}
