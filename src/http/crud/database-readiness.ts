import type { Database } from "../../engines/database.js";
import { probeStatement } from "../../sql/probe-statement.js";
import type { HttpReadiness } from "../balancer/http-readiness.js";

/**
 * The readiness of a process that serves one database: ready when a connection can be taken from the pool and
 * answers a trivial statement. Set it on `HttpServer.readiness` (with `balancerRoutes`), so that `/ready`
 * answers 503 while the database is away. Under saturation the check waits for a free connection like any
 * request, bounded by `HttpServer.readinessTimeout`.
 */
export class DatabaseReadiness implements HttpReadiness {
  readonly #database: Database;

  /** @param database the database the application's requests use. */
  constructor(database: Database) {
    this.#database = database;
  }

  /** @inheritdoc */
  async check(): Promise<void> {
    const connection = await this.#database.acquire();
    try {
      await connection.query(probeStatement, [], false);
    } finally {
      connection.release();
    }
  }
}
