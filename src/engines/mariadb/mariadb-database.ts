import { type ConnectionConfig, createConnection, createPool, type Pool, type PoolConnection } from "mariadb";
import { defaultStatementTimeout, type ReadRouting } from "../database.js";
import { PooledDatabase, type ServerDatabaseOptions } from "../pooled-database.js";
import { GaleraReadRouting } from "./galera-read-routing.js";
import { MariaDbConnection } from "./mariadb-connection.js";
import { MariaDbDialect } from "./mariadb-dialect.js";
import { cannotConnect, databaseClosed, isSqlError, notAUrl, unsafeGaleraSequence } from "./mariadb-errors.js";

/**
 * How to reach a MariaDB server (10.3 or later: Tenon needs its sequences). The connection URL reads
 * `mariadb://user:password@host:3306/database`; the port defaults to 3306 and the database is a schema name.
 */
export interface MariaDbOptions extends ServerDatabaseOptions {
  /** Seconds an unused connection stays open (default 1800). */
  readonly idleTimeout?: number;
  /** Milliseconds to wait for a connection (default 10000). */
  readonly connectTimeout?: number;
  /** TLS: `true`, or Node's TLS options. */
  readonly ssl?: boolean | import("node:tls").SecureContextOptions;
  /**
   * Milliseconds a statement may run before the server stops it (MariaDB's `max_statement_time`, set on
   * every connection); default 30000, 0 for no limit. A statement stopped so fails with a timeout-kind
   * `TransientDatabaseError`, answered 503 over HTTP.
   */
  readonly statementTimeout?: number;
  /**
   * On a Galera node (`wsrep_on`), the `wsrep_sync_wait` every connection sets (default 1: a read first
   * waits until its node has applied every write the cluster committed before it, so a read through one
   * node sees a write acknowledged through another). 0 leaves the server's setting, for when all requests
   * go to one node. Ignored on a server that is not a Galera node.
   */
  readonly wsrepSyncWait?: number;
  /**
   * On a Galera node: answer a consistency token after each write (the node's `WSREP_LAST_SEEN_GTID()`), and
   * make a session given one wait until its node has applied it (`WSREP_SYNC_WAIT_UPTO_GTID`) before it reads
   * (default false; a connection string may say `?consistencyTokens=true`). With `wsrepSyncWait: 0`, only the
   * reads that carry a token wait. Ignored on a server that is not a Galera node.
   */
  readonly consistencyTokens?: boolean;
  /** Milliseconds a read with a consistency token waits for its node (rounded up to seconds; default 1000); then it fails, answered 503. */
  readonly consistencyWait?: number;
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
  /** @inheritdoc Present with `consistencyTokens`. */
  readonly readRouting: ReadRouting | undefined;
  readonly #pool: Pool;
  readonly #where: string;
  /** What a connection of its own needs to send KILL QUERY (see `killQuery`). */
  readonly #killerOptions: ConnectionConfig;
  readonly #syncWait: number;
  /** The connector's connections (by their `info`, one per physical connection) already set up. */
  readonly #prepared = new WeakSet<object>();
  /** Whether the server is a Galera node, as the last new connection answered. */
  #galera = false;
  /** Sequences already found safe for Galera. */
  readonly #safeSequences = new Set<string>();

  /** Creates the pool; no connection opens until a session needs one. */
  constructor(options: MariaDbOptions) {
    super({ closed: databaseClosed, cannotConnect });
    const url = parseUrl(options.connectionString);
    const host = options.host ?? (url?.hostname || "localhost");
    const port = options.port ?? (url?.port ? Number(url.port) : 3306);
    const database = options.database ?? (url?.pathname.length ? decodeURIComponent(url.pathname.slice(1)) : undefined);
    const sslParameter = url?.searchParams.get("ssl");
    this.#where = `${host}:${port}/${database ?? ""}`;
    const timeout = Math.trunc(options.statementTimeout ?? defaultStatementTimeout);
    this.#syncWait = Math.trunc(options.wsrepSyncWait ?? 1);
    this.#killerOptions = {
      host,
      port,
      user: options.user ?? (url?.username ? decodeURIComponent(url.username) : undefined),
      password: options.password ?? (url?.password ? decodeURIComponent(url.password) : undefined),
      ssl: options.ssl ?? (sslParameter === "true" ? true : undefined),
      connectTimeout: options.connectTimeout ?? 10_000,
    };
    this.#pool = createPool({
      ...this.#killerOptions,
      database: database || undefined,
      sessionVariables: timeout > 0 ? { max_statement_time: timeout / 1000 } : undefined,
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
    const tokens = options.consistencyTokens ?? url?.searchParams.get("consistencyTokens") === "true";
    this.readRouting = tokens ? new GaleraReadRouting(options.consistencyWait ?? 1000, () => this.#galera) : undefined;
  }

  /** @inheritdoc */
  protected get where(): string {
    return this.#where;
  }

  /** @inheritdoc */
  protected async connect(): Promise<MariaDbConnection> {
    const connection = await this.#pool.getConnection();
    if (connection.info === null || !this.#prepared.has(connection.info)) await this.#prepare(connection);
    return new MariaDbConnection(this, connection);
  }

  /**
   * Asks a new connection whether its server is a Galera node, and there sets `wsrep_sync_wait`: behind a
   * load balancer, consecutive requests of one client land on different nodes, and a node applies the
   * others' writes a moment after they commit. Once per physical connection, not per request.
   */
  async #prepare(connection: PoolConnection): Promise<void> {
    try {
      let galera = false;
      try {
        const rows = (await connection.query({ sql: "SELECT @@wsrep_on", rowsAsArray: true })) as unknown[][];
        galera = Number(rows[0][0]) === 1;
      } catch (error) {
        // A server built without wsrep has no such variable: it is not a Galera node.
        if (!isSqlError(error) || error.fatal) throw error;
      }
      if (galera && this.#syncWait !== 0) await connection.query(`SET SESSION wsrep_sync_wait = ${this.#syncWait}`);
      this.#galera = galera;
      if (connection.info !== null) this.#prepared.add(connection.info);
    } catch (error) {
      connection.destroy();
      throw error;
    }
  }

  /**
   * @internal Refuses, on a Galera node, a sequence whose increment is not 0: Galera accepts `NOCACHE`
   * sequences with increment 1 and then hands out the same value on two nodes without any error. Asked at
   * the sequence's first use; a safe answer is remembered, an unsafe one asked again (the schema may be fixed).
   */
  async checkSequence(connection: MariaDbConnection, quotedName: string): Promise<void> {
    if (!this.#galera || this.#safeSequences.has(quotedName)) return;
    const rows = await connection.query(`SELECT \`increment\` FROM ${quotedName}`, []);
    const increment = String(rows[0]?.[0]);
    if (increment !== "0") throw unsafeGaleraSequence(quotedName, increment);
    this.#safeSequences.add(quotedName);
  }

  /** @inheritdoc */
  /** @inheritdoc */
  poolFigures(): { readonly inUse: number; readonly idle: number; readonly waiting: number } {
    const pool = this.#pool;
    return { inUse: pool.activeConnections(), idle: pool.idleConnections(), waiting: pool.taskQueueSize() };
  }

  protected endPool(): Promise<void> {
    return this.#pool.end();
  }

  /**
   * @internal Stops the statement a pooled connection runs (its client has gone): `KILL QUERY` sent over a
   * connection of its own, so that a full pool cannot hold it up. The statement fails with error 1317.
   */
  async killQuery(threadId: number): Promise<void> {
    const killer = await createConnection(this.#killerOptions);
    try {
      await killer.query(`KILL QUERY ${Math.trunc(threadId)}`);
    } finally {
      await killer.end();
    }
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
