// A PostgreSQL server of a test's own (throwaway-server.ts): initdb with trust authentication and fsync off,
// `postgres` in the foreground on a free port, as the `postgres` OS user (initdb and postgres refuse root),
// from the PostgreSQL 15 binaries Debian installs. The shared server on 5432 is never touched.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { startThrowawayServer, type ThrowawayEngine, type ThrowawayServer } from "./throwaway-server.js";

const run = promisify(execFile);

/** Where Debian installs the PostgreSQL 15 server binaries (override with TENON_PG_BIN). */
export const postgresBin = process.env.TENON_PG_BIN ?? "/usr/lib/postgresql/15/bin";

/** A throwaway PostgreSQL server; `url` is its `postgres` database (user postgres, trust authentication). */
export type ThrowawayPostgres = ThrowawayServer;

/** Why a throwaway PostgreSQL cannot be started here, or undefined when it can. */
export async function throwawayPostgresUnavailable(): Promise<string | undefined> {
  try {
    await run(join(postgresBin, "postgres"), ["--version"]);
    return undefined;
  } catch (error) {
    return `the PostgreSQL server binaries are not in ${postgresBin} (${(error as Error).message})`;
  }
}

const postgresEngine: ThrowawayEngine = {
  name: "PostgreSQL",
  prefix: "tenon-pg-",
  osUser: "postgres",
  logFile: "server.log",
  async initialize(directory, data, as) {
    await run(join(postgresBin, "initdb"), ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"], {
      timeout: 60_000,
      cwd: directory,
      uid: as?.uid,
      gid: as?.gid,
    });
  },
  command: (directory, data, port, as) => ({
    command: join(postgresBin, "postgres"),
    args: [
      "-D",
      data,
      "-p",
      String(port),
      "-k",
      directory,
      ...["listen_addresses=127.0.0.1", "fsync=off", "full_page_writes=off", "max_connections=50", "shared_buffers=16MB"].flatMap(
        (setting) => ["-c", setting],
      ),
      ...["logging_collector=on", `log_directory=${directory}`, "log_filename=server.log"].flatMap((setting) => ["-c", setting]),
    ],
    runAs: as,
  }),
  // SIGINT: fast shutdown (sessions ended, transactions rolled back); SIGQUIT: immediate, recovery at next start.
  signals: { fast: "SIGINT", immediate: "SIGQUIT" },
  async probe(port) {
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`, connectionTimeoutMillis: 1000 });
    client.on("error", () => {});
    try {
      await client.connect();
    } finally {
      await client.end().catch(() => {});
    }
  },
  url: (port, database) => `postgres://postgres@127.0.0.1:${port}/${database === "" ? "postgres" : database}`,
};

/** Creates a cluster and starts it on a free port. */
export function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  return startThrowawayServer(postgresEngine);
}
