import pg from "pg";
import { defaultStatementTimeout } from "../database.js";
import { PooledDatabase, type ServerDatabaseOptions } from "../pooled-database.js";
import { PostgresConnection } from "./postgres-connection.js";
import { changeChannel, PostgresDialect } from "./postgres-dialect.js";
import { cannotConnect, databaseClosed, notAUrl } from "./postgres-errors.js";

/**
 * How to reach a PostgreSQL (or PostgreSQL-compatible) server. The connection URL reads
 * `postgres://user:password@host:5432/database`; the port defaults to 5432.
 */
export interface PostgresOptions extends ServerDatabaseOptions {
  /** A schema to put first on every connection's `search_path`; unquoted names then resolve in it. */
  readonly schema?: string;
  /** Milliseconds an unused connection stays open (default 30000). */
  readonly idleTimeout?: number;
  /** Milliseconds to wait for a new connection (default 10000). */
  readonly connectTimeout?: number;
  /** TLS: `true`, or Node's TLS options. */
  readonly ssl?: boolean | import("node:tls").ConnectionOptions;
  /**
   * Prepare each distinct statement once per connection (default true; turn off behind a pooler that cannot
   * keep them, such as PgBouncer in transaction mode). A connection string may say `?prepareStatements=false`.
   */
  readonly prepareStatements?: boolean;
  /** Shown in `pg_stat_activity` (default `tenon`). */
  readonly applicationName?: string;
  /**
   * Milliseconds a statement may run before the server stops it (PostgreSQL's `statement_timeout`, set on
   * every connection); default 30000, 0 for no limit. A statement stopped so fails with a timeout-kind
   * `TransientDatabaseError`, answered 503 over HTTP.
   */
  readonly statementTimeout?: number;
}

/** Statement names handed out per SQL text; past this many, further texts run unnamed. */
const maxPreparedStatements = 2000;

/**
 * A pool of PostgreSQL connections on the `pg` driver. A session takes one connection on its first
 * statement and gives it back when it is disposed; a connection that broke is closed instead of pooled.
 */
export class PostgresDatabase extends PooledDatabase<PostgresConnection> {
  /** @inheritdoc */
  readonly dialect = new PostgresDialect();
  readonly #pool: pg.Pool;
  readonly #statementNames = new Map<string, string>();
  readonly #prepare: boolean;
  readonly #where: string;

  /** Creates the pool; no connection opens until a session needs one. */
  constructor(options: PostgresOptions) {
    super({ closed: databaseClosed, cannotConnect });
    const settings: string[] = [];
    if (options.schema !== undefined) settings.push(`-c search_path=${escapeOption(this.dialect.quoteIdentifier(options.schema))}`);
    this.#pool = new pg.Pool({
      connectionString: overrideUrl(options),
      host: options.connectionString === undefined ? options.host : undefined,
      port: options.connectionString === undefined ? options.port : undefined,
      user: options.connectionString === undefined ? options.user : undefined,
      password: options.connectionString === undefined ? options.password : undefined,
      database: options.connectionString === undefined ? options.database : undefined,
      ssl: options.ssl,
      max: options.poolSize ?? 10,
      idleTimeoutMillis: options.idleTimeout ?? 30_000,
      connectionTimeoutMillis: options.connectTimeout ?? 10_000,
      application_name: options.applicationName ?? "tenon",
      statement_timeout: statementTimeoutOf(options.statementTimeout),
      options: settings.length > 0 ? settings.join(" ") : undefined,
    });
    // An idle pooled connection that dies (server restart, pg_terminate_backend) is dropped by the pool;
    // the error is reported to whoever next uses the pool, not thrown at the process.
    this.#pool.on("error", () => {});
    this.#prepare = options.prepareStatements ?? prepareParameter(options.connectionString) ?? true;
    this.#where = describe(options);
  }

  /** @inheritdoc */
  protected get where(): string {
    return this.#where;
  }

  /** @inheritdoc */
  protected async connect(): Promise<PostgresConnection> {
    return new PostgresConnection(this, await this.#pool.connect());
  }

  /** @inheritdoc */
  /** @inheritdoc */
  poolFigures(): { readonly inUse: number; readonly idle: number; readonly waiting: number } {
    const pool = this.#pool;
    return { inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount };
  }

  protected endPool(): Promise<void> {
    return this.#pool.end();
  }

  /** @inheritdoc A client of its own, outside the pool, runs `LISTEN` on the change channel. */
  async listenForChanges(onNotify: () => void): Promise<() => Promise<void>> {
    const client = new pg.Client(this.#pool.options);
    // A listening connection that dies is given up: the readers' polling still finds every change.
    client.on("error", () => undefined);
    client.on("notification", (message) => {
      if (message.channel === changeChannel) onNotify();
    });
    await client.connect();
    try {
      await client.query(`LISTEN ${changeChannel}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    return () => client.end().catch(() => undefined);
  }

  /** @internal The prepared-statement name of an SQL text, or undefined when statements are not prepared. */
  statementName(sql: string, parameterCount: number): string | undefined {
    if (!this.#prepare || parameterCount === 0) return undefined;
    let name = this.#statementNames.get(sql);
    if (name === undefined && this.#statementNames.size < maxPreparedStatements) {
      name = `tenon_${this.#statementNames.size + 1}`;
      this.#statementNames.set(sql, name);
    }
    return name;
  }
}

/** The `statement_timeout` to set: the option, or the default; undefined (the server's own setting) for 0. */
function statementTimeoutOf(value: number | undefined): number | undefined {
  const timeout = Math.trunc(value ?? defaultStatementTimeout);
  return timeout > 0 ? timeout : undefined;
}

/** The connection string with the separately given fields written into it (pg lets the string win otherwise). */
function overrideUrl(options: PostgresOptions): string | undefined {
  if (options.connectionString === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(options.connectionString);
  } catch (error) {
    throw notAUrl(error);
  }
  // Tenon's own parameter: the driver would send it to the server as a setting.
  url.searchParams.delete("prepareStatements");
  if (options.host !== undefined) url.hostname = options.host;
  if (options.port !== undefined) url.port = String(options.port);
  if (options.user !== undefined) url.username = encodeURIComponent(options.user);
  if (options.password !== undefined) url.password = encodeURIComponent(options.password);
  if (options.database !== undefined) url.pathname = `/${encodeURIComponent(options.database)}`;
  return url.href;
}

/**
 * `?prepareStatements=false` in the connection string: behind a transaction-mode pooler (PgBouncer) an
 * application that is configured by one URL (the demo's DATABASE_URL) can turn prepared statements off.
 */
function prepareParameter(connectionString: string | undefined): boolean | undefined {
  if (connectionString === undefined) return undefined;
  let value: string | null;
  try {
    value = new URL(connectionString).searchParams.get("prepareStatements");
  } catch {
    return undefined;
  }
  return value === null ? undefined : value !== "false";
}

/** `host:port/database` for messages; never the password. */
function describe(options: PostgresOptions): string {
  let url: URL | undefined;
  try {
    url = options.connectionString === undefined ? undefined : new URL(options.connectionString);
  } catch {
    url = undefined;
  }
  const host = options.host ?? (url?.hostname || "localhost");
  const port = options.port ?? (url?.port || 5432);
  const database = options.database ?? (url?.pathname.slice(1) || options.user || "");
  return `${host}:${port}/${decodeURIComponent(database)}`;
}

/** Escapes a value for the libpq `options` startup string (spaces and backslashes). */
function escapeOption(value: string): string {
  return value.replace(/[\\ ]/g, "\\$&");
}
