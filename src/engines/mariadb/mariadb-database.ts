import { createPool, type Pool } from "mariadb";
import { PooledDatabase } from "../pooled-database.js";
import { MariaDbConnection } from "./mariadb-connection.js";
import { MariaDbDialect } from "./mariadb-dialect.js";
import { cannotConnect, databaseClosed, notAUrl } from "./mariadb-errors.js";

/** How to reach a MariaDB server (10.3 or later: Tenon needs its sequences). */
export interface MariaDbOptions {
  /** A connection URL, `mariadb://user:password@host:3306/database`; the fields below override its parts. */
  readonly connectionString?: string;
  /** Host name or address (default `localhost`, or the URL's). */
  readonly host?: string;
  /** Port (default 3306). */
  readonly port?: number;
  /** User name. */
  readonly user?: string;
  /** Password. */
  readonly password?: string;
  /** Database (schema) name. */
  readonly database?: string;
  /** Most connections open at once (default 10). */
  readonly poolSize?: number;
  /** Seconds an unused connection stays open (default 1800). */
  readonly idleTimeout?: number;
  /** Milliseconds to wait for a connection (default 10000). */
  readonly connectTimeout?: number;
  /** TLS: `true`, or Node's TLS options. */
  readonly ssl?: boolean | import("node:tls").SecureContextOptions;
}

/**
 * A pool of MariaDB connections on the official `mariadb` connector. Every connection's session time zone
 * is forced to UTC and DATETIME values travel as text, so stored times depend on neither the server's nor
 * the Node process's time zone. A session takes one connection on its first statement and gives it back
 * when it is disposed; a connection that broke is destroyed instead of pooled.
 */
export class MariaDbDatabase extends PooledDatabase<MariaDbConnection> {
  /** @inheritdoc */
  readonly dialect = new MariaDbDialect();
  readonly #pool: Pool;
  readonly #where: string;

  /** Creates the pool; no connection opens until a session needs one. */
  constructor(options: MariaDbOptions) {
    super({ closed: databaseClosed, cannotConnect });
    const url = parseUrl(options.connectionString);
    const host = options.host ?? (url?.hostname || "localhost");
    const port = options.port ?? (url?.port ? Number(url.port) : 3306);
    const database = options.database ?? (url?.pathname.length ? decodeURIComponent(url.pathname.slice(1)) : undefined);
    const sslParameter = url?.searchParams.get("ssl");
    this.#where = `${host}:${port}/${database ?? ""}`;
    this.#pool = createPool({
      host,
      port,
      user: options.user ?? (url?.username ? decodeURIComponent(url.username) : undefined),
      password: options.password ?? (url?.password ? decodeURIComponent(url.password) : undefined),
      database: database || undefined,
      ssl: options.ssl ?? (sslParameter === "true" ? true : undefined),
      connectionLimit: options.poolSize ?? 10,
      minimumIdle: 0,
      idleTimeout: options.idleTimeout ?? 1800,
      acquireTimeout: options.connectTimeout ?? 10_000,
      connectTimeout: options.connectTimeout ?? 10_000,
      rowsAsArray: true,
      dateStrings: true,
      timezone: "+00:00",
      bigIntAsNumber: false,
      decimalAsNumber: false,
      insertIdAsNumber: true,
      foundRows: true,
    });
    // Failed connection attempts are reported to whoever waits for a connection, not thrown at the process.
    (this.#pool as unknown as NodeJS.EventEmitter).on("error", () => {});
  }

  /** @inheritdoc */
  protected get where(): string {
    return this.#where;
  }

  /** @inheritdoc */
  protected async connect(): Promise<MariaDbConnection> {
    return new MariaDbConnection(this, await this.#pool.getConnection());
  }

  /** @inheritdoc */
  protected endPool(): Promise<void> {
    return this.#pool.end();
  }
}

function parseUrl(connectionString: string | undefined): URL | undefined {
  if (connectionString === undefined) return undefined;
  try {
    return new URL(connectionString);
  } catch (error) {
    throw notAUrl(error);
  }
}
