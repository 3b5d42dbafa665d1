import pg from "pg";
import { type PoolSnapshot, defaultStatementTimeout, type ReadRouting } from "../database.js";
import { PooledDatabase, type ServerDatabaseOptions } from "../pooled-database.js";
import { PostgresConnection, type ServerWatch } from "./postgres-connection.js";
import { changeChannel, PostgresDialect } from "./postgres-dialect.js";
import { cannotConnect, clusterError, connectionGivenBack, databaseClosed, isConnectionLost, sqlState } from "./postgres-errors.js";
import { PostgresReadRouting } from "./postgres-read-routing.js";
import { ReplicaSet, ReplicaSetMember } from "./postgres-replica-set.js";
import { databaseNameOf, type PostgresHostOption, type PostgresServer, serversOf, urlParameter } from "./postgres-servers.js";

/**
 * How to reach a PostgreSQL (or PostgreSQL-compatible) server, or the servers of a cluster (a primary and its
 * streaming replicas: docs/scaling.md, "Read replicas"). The connection URL reads
 * `postgres://user:password@host:5432/database`, or with several hosts
 * `postgres://user:password@db1:5432,db2:5432,db3:5432/database`; the port defaults to 5432.
 */
export interface PostgresOptions extends ServerDatabaseOptions {
  /**
   * The servers of a cluster, in any order: `["db1:5432", "db2:5432"]` or `{ host, port }` objects (a `host`
   * with commas, `"db1,db2:5433"`, or a URL with several hosts says the same). Tenon finds the primary itself
   * (the one server not in recovery, as libpq's `target_session_attrs=read-write`), sends every write there,
   * and finds it again after a failover, without a proxy. With one server (the default) nothing of this runs.
   */
  readonly hosts?: readonly PostgresHostOption[];
  /**
   * Reads outside a write transaction, of sessions that have not written, go to replicas in rotation (default
   * false; a context's `replicaReads` decides for itself). Only with several hosts. A connection string may
   * say `?replicaReads=true`.
   */
  readonly replicaReads?: boolean;
  /**
   * Milliseconds a replica may be behind the primary and still serve reads (default 10000); a replica further
   * behind leaves the rotation until it catches up. A connection string may say `?maxReplicaLag=<ms>`.
   */
  readonly maxReplicaLag?: number;
  /**
   * Milliseconds a read that carries a consistency token waits for a replica to replay past it (default 200)
   * before the primary serves it; 0: the primary at once. A connection string may say `?consistencyWait=<ms>`.
   */
  readonly consistencyWait?: number;
  /** Milliseconds between two checks of every server's role and WAL position (default 1000). */
  readonly checkInterval?: number;
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
 *
 * With several hosts, one pool per server (each of `poolSize`): writes, transactions and the reads of
 * sessions that wrote go to the primary, which a `ReplicaSet` finds and finds again after a failover; other
 * reads may go to replicas in rotation (`replicaReads`), and a consistency token sent back by a client makes
 * them wait for a replica that has replayed past it (`readRouting`).
 */
export class PostgresDatabase extends PooledDatabase<PostgresConnection, ReplicaSetMember> {
  /** @inheritdoc */
  readonly dialect = new PostgresDialect();
  /** @inheritdoc Present with several hosts. */
  readonly readRouting: ReadRouting | undefined;
  /** The pool of the one server; undefined with several hosts. */
  readonly #pool: pg.Pool | undefined;
  /** The servers of several hosts; undefined with one. */
  readonly #replicas: ReplicaSet | undefined;
  readonly #watches = new Map<ReplicaSetMember, ServerWatch>();
  readonly #statementNames = new Map<string, string>();
  readonly #prepare: boolean;
  readonly #where: string;

  /** Creates the pool (one per server of several); no connection opens until a session needs one. */
  constructor(options: PostgresOptions) {
    super({ closed: databaseClosed, cannotConnect });
    const settings: string[] = [];
    if (options.schema !== undefined) settings.push(`-c search_path=${escapeOption(this.dialect.quoteIdentifier(options.schema))}`);
    const servers = serversOf(options);
    const poolOf = (server: PostgresServer): pg.Pool => {
      const pool = new pg.Pool({
        connectionString: server.connectionString,
        host: server.host,
        port: server.port,
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
      pool.on("error", () => {});
      return pool;
    };
    this.#prepare = options.prepareStatements ?? booleanParameter(options.connectionString, "prepareStatements") ?? true;
    this.#where = `${servers.map((server) => server.address).join(",")}/${databaseNameOf(options)}`;
    if (servers.length === 1) {
      this.#pool = poolOf(servers[0]);
      this.#replicas = undefined;
      this.readRouting = undefined;
      return;
    }
    const members = servers.map((server) => new ReplicaSetMember(server, poolOf(server)));
    const replicas = new ReplicaSet(
      members,
      {
        checkInterval: options.checkInterval ?? 1000,
        maxReplicaLag: options.maxReplicaLag ?? numberParameter(options.connectionString, "maxReplicaLag") ?? 10_000,
        consistencyWait: options.consistencyWait ?? numberParameter(options.connectionString, "consistencyWait") ?? 200,
        connectTimeout: options.connectTimeout ?? 10_000,
      },
      this.#where,
    );
    for (const member of members) {
      this.#watches.set(member, {
        errors: { isConnectionLost, wrap: clusterError(member.server.address), givenBack: connectionGivenBack },
        failed(error) {
          if (isConnectionLost(error) || sqlState(error) === "25006") replicas.suspect(member);
        },
      });
    }
    this.#pool = undefined;
    this.#replicas = replicas;
    this.readRouting = new PostgresReadRouting(
      replicas,
      options.replicaReads ?? booleanParameter(options.connectionString, "replicaReads") ?? false,
      (member) => this.lend(member),
    );
  }

  /** @inheritdoc */
  protected get where(): string {
    return this.#where;
  }

  /** @inheritdoc */
  protected async connect(target?: ReplicaSetMember): Promise<PostgresConnection> {
    const single = this.#pool;
    if (single !== undefined) return new PostgresConnection(this, await single.connect());
    const replicas = this.#replicas as ReplicaSet;
    const member = target ?? (await replicas.primary());
    let client: pg.PoolClient;
    try {
      client = await member.pool.connect();
    } catch (error) {
      replicas.suspect(member);
      throw error;
    }
    return new PostgresConnection(this, client, this.#watches.get(member));
  }

  /** @inheritdoc Summed over the servers' pools with several hosts, with what their routing saw. */
  poolFigures(): PoolSnapshot {
    let inUse = 0;
    let idle = 0;
    let waiting = 0;
    for (const pool of this.#pools()) {
      inUse += pool.totalCount - pool.idleCount;
      idle += pool.idleCount;
      waiting += pool.waitingCount;
    }
    const replicas = this.#replicas;
    if (replicas === undefined) return { inUse, idle, waiting };
    const { reads, consistencyWaits, failovers } = replicas.counters;
    return {
      inUse,
      idle,
      waiting,
      replicas: { reads: { ...reads }, consistencyWaits: { ...consistencyWaits }, failovers, servers: replicas.figures() },
    };
  }

  protected async endPool(): Promise<void> {
    await this.#replicas?.close();
    await Promise.all(this.#pools().map((pool) => pool.end()));
  }

  #pools(): pg.Pool[] {
    return this.#pool !== undefined ? [this.#pool] : (this.#replicas as ReplicaSet).members.map((member) => member.pool);
  }

  /** @inheritdoc A client of its own, outside the pool, runs `LISTEN` on the change channel (on the primary). */
  async listenForChanges(onNotify: () => void): Promise<() => Promise<void>> {
    const client = new pg.Client((this.#pool ?? (await (this.#replicas as ReplicaSet).primary()).pool).options);
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

/** A boolean query parameter of the connection string (`false` is false, anything else true), or undefined. */
function booleanParameter(connectionString: string | undefined, name: string): boolean | undefined {
  const value = urlParameter(connectionString, name);
  return value === undefined ? undefined : value !== "false";
}

/** A numeric query parameter of the connection string, or undefined when absent or not a number. */
function numberParameter(connectionString: string | undefined, name: string): number | undefined {
  const value = Number(urlParameter(connectionString, name) ?? Number.NaN);
  return Number.isFinite(value) ? value : undefined;
}

/** Escapes a value for the libpq `options` startup string (spaces and backslashes). */
function escapeOption(value: string): string {
  return value.replace(/[\\ ]/g, "\\$&");
}
