import type { Dialect } from "../sql/dialect.js";
import type { Connection, Database } from "./database.js";

/** How to reach a database server: what the options of the server engines (PostgreSQL, MariaDB) share. */
export interface ServerDatabaseOptions {
  /** A connection URL (see the engine's options for its form); the fields below override its parts. */
  readonly connectionString?: string;
  /** Host name or address (default `localhost`, or the URL's). */
  readonly host?: string;
  /** Port (default the engine's own, or the URL's). */
  readonly port?: number;
  /** User name. */
  readonly user?: string;
  /** Password. */
  readonly password?: string;
  /** Database name. */
  readonly database?: string;
  /** Most connections open at once (default 10). */
  readonly poolSize?: number;
}

/** How one server engine words the failures of its pool. */
export interface PooledDatabaseErrors {
  /** A session asked for a connection after `close()`. */
  closed(where: string): Error;
  /** No connection could be opened. */
  cannotConnect(where: string, error: unknown): Error;
}

/**
 * A server engine's pool as sessions see it: connections are lent one per session, and `close()` also
 * closes those lent to sessions that were never disposed, so a forgotten session cannot keep the pool
 * (and the process) open. Subclasses open the driver's pool and wrap its connections.
 */
export abstract class PooledDatabase<C extends Connection & { discard(): void }, Target = never> implements Database {
  /** @inheritdoc */
  abstract readonly dialect: Dialect;
  readonly #lent = new Set<C>();
  readonly #errors: PooledDatabaseErrors;
  #closed = false;

  /** @param errors the engine's wording of pool failures. */
  protected constructor(errors: PooledDatabaseErrors) {
    this.#errors = errors;
  }

  /** Where the pool connects, for messages (`host:port/database`, never a password). */
  protected abstract get where(): string;
  /**
   * Takes a connection from the driver's pool and wraps it: from the pool of `target` (a server of several:
   * a read replica), or, undefined, from the pool that takes the writes.
   */
  protected abstract connect(target?: Target): Promise<C>;
  /** Closes the driver's pool. */
  protected abstract endPool(): Promise<void>;

  /** @inheritdoc */
  acquire(): Promise<Connection> {
    return this.lend(undefined);
  }

  /** Takes a connection of `target` (see `connect`) and lends it to a session: `close()` closes it too. */
  protected async lend(target: Target | undefined): Promise<C> {
    if (this.#closed) throw this.#errors.closed(this.where);
    let connection: C;
    try {
      connection = await this.connect(target);
    } catch (error) {
      throw this.#errors.cannotConnect(this.where, error);
    }
    this.#lent.add(connection);
    return connection;
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Connections still lent to sessions that were never disposed would keep the pool open forever.
    for (const connection of this.#lent) connection.discard();
    this.#lent.clear();
    await this.endPool();
  }

  /** Runs SQL text with no parameters on a pooled connection (schema scripts, maintenance). */
  async exec(sql: string): Promise<void> {
    const connection = await this.acquire();
    try {
      await connection.execute(sql, []);
    } finally {
      connection.release();
    }
  }

  /** @internal A connection was given back (or discarded). */
  returned(connection: C): void {
    this.#lent.delete(connection);
  }
}
