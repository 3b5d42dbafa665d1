// A database of a test's own on a PostgreSQL or MariaDB server (the shared one, a throwaway one, a Galera
// cluster): created with a unique name, read through a direct connection of the test's own, and dropped at
// close. One home for what the ORM harnesses, the demo's engines and the fault suites used to set up each
// their own way.
import { randomBytes } from "node:crypto";
import { type Connection, createConnection } from "mariadb";
import pg from "pg";
import { retried } from "./retried.js";

/** A scratch database and the test's direct view of it. */
export interface ScratchDatabase {
  /** Its name (`<prefix>_<pid>_<random>`). */
  readonly name: string;
  /** The server's URL with the database's name as its path: what the code under test connects to (adjust the host to go through a proxy). */
  readonly url: string;
  /** Runs statements on the direct connection. */
  exec(sql: string): Promise<void>;
  /** Rows read on the direct connection (placeholders as the driver takes them). */
  rows(sql: string, parameters?: readonly unknown[]): Promise<Record<string, unknown>[]>;
  /** Drops the database and ends the direct connection. */
  close(): Promise<void>;
}

/** Options of the scratch databases. */
export interface ScratchOptions {
  /** The name's prefix (default `tenon_test`). */
  readonly prefix?: string;
  /** Statements run on each direct connection first (on Galera `SET SESSION wsrep_sync_wait = 1`). */
  readonly directSetup?: readonly string[];
  /**
   * Try a failed direct read again on a fresh connection (default off). For a server that a test's fault may
   * cut for a moment, such as a cluster behind HAProxy with one node stopped: a transient error of the test's
   * own connection is not what the test is about.
   */
  readonly retry?: boolean;
}

function uniqueName(prefix: string | undefined): string {
  return `${prefix ?? "tenon_test"}_${process.pid}_${randomBytes(4).toString("hex")}`;
}

function withPath(server: string, name: string): string {
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.href;
}

/** Creates a database on the PostgreSQL server at `server` (any database URL of it); dropped `WITH (FORCE)` at close. */
export async function createPostgresScratch(server: string, options: ScratchOptions = {}): Promise<ScratchDatabase> {
  const name = uniqueName(options.prefix);
  const url = withPath(server, name);
  const connect = async (target: string): Promise<pg.Client> => {
    const client = new pg.Client({ connectionString: target });
    client.on("error", () => {});
    await client.connect();
    for (const sql of options.directSetup ?? []) await client.query(sql);
    return client;
  };
  const admin = await connect(server);
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  let direct: pg.Client | undefined;
  const onDirect = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const attempt = async (): Promise<T> => {
      direct ??= await connect(url);
      const client = direct;
      try {
        return await work(client);
      } catch (error) {
        // With retries, the next attempt runs on a fresh connection (this one may be the one that broke).
        if (options.retry === true) {
          direct = undefined;
          await client.end().catch(() => {});
        }
        throw error;
      }
    };
    return options.retry === true ? retried(attempt) : attempt();
  };
  return {
    name,
    url,
    async exec(sql) {
      await onDirect((client) => client.query(sql));
    },
    rows: (sql, parameters = []) =>
      onDirect(async (client) => (await client.query(sql, [...parameters])).rows as Record<string, unknown>[]),
    async close() {
      await direct?.end().catch(() => {});
      direct = undefined;
      const dropping = await connect(server);
      try {
        await dropping.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropping.end();
      }
    },
  };
}

/** Creates a database (utf8mb4) on the MariaDB server or cluster at `server`; dropped at close. */
export async function createMariaDbScratch(server: string, options: ScratchOptions = {}): Promise<ScratchDatabase> {
  const name = uniqueName(options.prefix);
  const parsed = new URL(server);
  const connect = async (database?: string): Promise<Connection> => {
    const connection = await createConnection({
      host: parsed.hostname,
      port: parsed.port === "" ? 3306 : Number(parsed.port),
      user: decodeURIComponent(parsed.username),
      password: parsed.password === "" ? undefined : decodeURIComponent(parsed.password),
      database,
      connectTimeout: 5000,
    });
    // Without a listener, the driver throws an uncaught error when the server cuts an idle connection (a node
    // stopped by the test); with one, the next statement on it fails instead, and a retry reconnects.
    connection.on("error", () => {});
    for (const sql of options.directSetup ?? []) await connection.query(sql);
    return connection;
  };
  const admin = await connect();
  try {
    await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
  } finally {
    await admin.end();
  }
  let direct: Connection | undefined;
  const onDirect = async <T>(work: (connection: Connection) => Promise<T>): Promise<T> => {
    const attempt = async (): Promise<T> => {
      direct ??= await connect(name);
      const connection = direct;
      try {
        return await work(connection);
      } catch (error) {
        if (options.retry === true) {
          direct = undefined;
          await connection.end().catch(() => {});
        }
        throw error;
      }
    };
    return options.retry === true ? retried(attempt) : attempt();
  };
  const close = async (): Promise<void> => {
    await direct?.end().catch(() => {});
    direct = undefined;
    const dropping = await connect();
    try {
      await dropping.query(`DROP DATABASE IF EXISTS ${name}`);
    } finally {
      await dropping.end();
    }
  };
  return {
    name,
    url: withPath(server, name),
    async exec(sql) {
      await onDirect((connection) => connection.query(sql));
    },
    rows: (sql, parameters = []) =>
      onDirect(async (connection) => (await connection.query(sql, [...parameters])) as Record<string, unknown>[]),
    close: options.retry === true ? () => retried(close) : close,
  };
}
