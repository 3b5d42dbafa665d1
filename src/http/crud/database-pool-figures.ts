import type { Database } from "../../engines/database.js";
import type { HttpPoolFigures, PoolFigures } from "../operations/pool-figures.js";

const noPool: PoolFigures = Object.freeze({ inUse: 0, idle: 0, waiting: 0 });

/**
 * The pool figures of a Tenon database for `HttpServer.metrics` (`pools: [new DatabasePoolFigures("main",
 * database)]`): connections in use and idle, and sessions waiting, read at every scrape. The embedded
 * engine has no pool and reports zeros.
 */
export class DatabasePoolFigures implements HttpPoolFigures {
  /** @inheritdoc */
  readonly name: string;
  readonly #database: Database;

  /** @param name the `database` label of its series. @param database the database the requests use. */
  constructor(name: string, database: Database) {
    this.name = name;
    this.#database = database;
  }

  /** @inheritdoc */
  figures(): PoolFigures {
    return this.#database.poolFigures?.() ?? noPool;
  }
}
