import type { Database, PolicyCaller } from "tenon";
import { HttpContext } from "tenon/http";

let database: Database | undefined;

/** The caller of the policy-scoped bench (BENCH_POLICY=1): it owns the data set's rows ("seed"). */
const policyCaller: PolicyCaller | undefined =
  process.env.BENCH_POLICY === "1" ? { username: "bench", areas: ["bench"], tenant: "", claims: { owner: "seed" } } : undefined;

/** Opens the bench's database (SQLite file, PostgreSQL schema tenon_bench, or a MariaDB database) once per process. */
export async function openDatabase(): Promise<Database> {
  if (process.env.BENCH_DB === "postgres") {
    const { PostgresDatabase } = await import("tenon/postgres");
    database = new PostgresDatabase({
      connectionString: process.env.BENCH_PG_URL || "postgres://postgres@127.0.0.1:5432/test",
      schema: process.env.BENCH_PG_SCHEMA || "tenon_bench",
      poolSize: 10,
    });
  } else if (process.env.BENCH_DB === "mariadb") {
    const { MariaDbDatabase } = await import("tenon/mariadb");
    database = new MariaDbDatabase({
      connectionString: process.env.BENCH_MARIADB_URL || "mariadb://root@127.0.0.1:3306/test",
      poolSize: 10,
    });
  } else {
    const { SqliteDatabase } = await import("tenon/sqlite");
    // BENCH_SQLITE_DRIVER=node:sqlite or better-sqlite3 measures one SQLite driver; unset, Tenon's default.
    const driver = process.env.BENCH_SQLITE_DRIVER;
    database = new SqliteDatabase({
      filename: process.env.BENCH_SQLITE_PATH ?? "",
      driver: driver === "node:sqlite" || driver === "better-sqlite3" ? driver : undefined,
    });
  }
  return database;
}

/** The per-request context: the request's session, created on first use and released after the answer. */
export class BenchContext {
  #http: HttpContext | undefined;

  /** The session of this request. */
  get http(): HttpContext {
    if (this.#http === undefined) {
      this.#http = new HttpContext(database!);
      this.#http.onGetCurrentUser = () => "bench";
      if (policyCaller !== undefined) this.#http.onGetCurrentCaller = () => policyCaller;
    }
    return this.#http;
  }

  /** Releases the session's connection (undefined, nothing to wait for, when no session was opened). */
  [Symbol.asyncDispose](): Promise<void> | undefined {
    return this.#http?.dispose();
  }
}
