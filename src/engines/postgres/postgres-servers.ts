import type { ServerDatabaseOptions } from "../pooled-database.js";
import { notAUrl } from "./postgres-errors.js";

/** One server of a PostgreSQL database as the `pg` pool reaches it: a URL of its own, or the separate fields. */
export interface PostgresServer {
  /** `host:port`, for messages and metric labels. */
  readonly address: string;
  /** The connection string for this server alone, when the options gave one. */
  readonly connectionString: string | undefined;
  /** The host, when no connection string is given. */
  readonly host: string | undefined;
  /** The port, when no connection string is given. */
  readonly port: number | undefined;
}

/** A host of the `hosts` option: `"db1:5432"`, `"db1"` (the default port) or `{ host, port }`. */
export type PostgresHostOption = string | { readonly host: string; readonly port?: number };

/** What `serversOf` reads: the part of `PostgresOptions` that says where the servers are. */
export interface PostgresAddressOptions extends Omit<ServerDatabaseOptions, "poolSize"> {
  /** The servers of a cluster (see `PostgresOptions.hosts`). */
  readonly hosts?: readonly PostgresHostOption[];
}

/** Query parameters of a connection string that are Tenon's (or libpq's, which `pg` does not know), never sent to the server. */
const ownParameters = ["prepareStatements", "replicaReads", "maxReplicaLag", "consistencyWait", "target_session_attrs"];

/** scheme `//` userinfo `@` hosts rest: a URL whose authority may name several hosts, as libpq reads it. */
const urlParts = /^([a-z][a-z0-9+.-]*:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/is;

/** `host`, `host:port`, `[v6]`, `[v6]:port` split; the port undefined when absent. */
function splitHostPort(text: string): { host: string; port: number | undefined } {
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(text.trim());
  if (match === null) return { host: text.trim(), port: undefined };
  return { host: match[1], port: match[2] === undefined || match[2] === "" ? undefined : Number(match[2]) };
}

/** The hosts a connection string names (one, or several separated by commas). */
function hostsOfUrl(connectionString: string): string[] {
  const parts = urlParts.exec(connectionString);
  return parts === null ? [] : parts[3].split(",");
}

/** The connection string with its authority naming `host` alone. */
function withHost(connectionString: string, host: string): string {
  const parts = urlParts.exec(connectionString);
  if (parts === null) return connectionString;
  return `${parts[1]}${parts[2] ?? ""}${host}${parts[4]}`;
}

/** The hosts the options name, in order; one entry for a single server. */
function hostList(options: PostgresAddressOptions): { host: string; port: number | undefined }[] {
  if (options.hosts !== undefined && options.hosts.length > 0)
    return options.hosts.map((entry) => (typeof entry === "string" ? splitHostPort(entry) : { host: entry.host, port: entry.port }));
  if (options.host?.includes(",") === true) return options.host.split(",").map(splitHostPort);
  if (options.connectionString !== undefined && options.host === undefined) {
    const hosts = hostsOfUrl(options.connectionString);
    if (hosts.length > 1) return hosts.map(splitHostPort);
  }
  return [];
}

/** The connection string with the separately given fields written into it (pg lets the string win otherwise). */
function overrideUrl(
  connectionString: string,
  options: PostgresAddressOptions,
  server: { host: string; port: number } | undefined,
): string {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch (error) {
    throw notAUrl(error);
  }
  for (const name of ownParameters) url.searchParams.delete(name);
  if (server !== undefined) {
    url.hostname = server.host;
    url.port = String(server.port);
  } else {
    if (options.host !== undefined) url.hostname = options.host;
    if (options.port !== undefined) url.port = String(options.port);
  }
  if (options.user !== undefined) url.username = encodeURIComponent(options.user);
  if (options.password !== undefined) url.password = encodeURIComponent(options.password);
  if (options.database !== undefined) url.pathname = `/${encodeURIComponent(options.database)}`;
  return url.href;
}

/**
 * The servers the options name: one for a single server (the URL, or the fields, as `pg` takes them), or one
 * per host of a cluster, named by the `hosts` list, by a `host` with commas (`"db1,db2:5433"`), or by a URL
 * whose authority names several hosts (`postgres://user@db1:5432,db2:5432/app`). A host without a port takes
 * `port`, or 5432. Throws `DatabaseError` for a connection string that is not a URL.
 */
export function serversOf(options: PostgresAddressOptions): PostgresServer[] {
  const hosts = hostList(options);
  if (hosts.length <= 1) {
    const single = hosts[0];
    const connectionString =
      options.connectionString === undefined
        ? undefined
        : overrideUrl(
            options.connectionString,
            options,
            single === undefined ? undefined : { host: single.host, port: single.port ?? options.port ?? 5432 },
          );
    const host = single?.host ?? options.host;
    const port = single?.port ?? options.port;
    const url = connectionString === undefined ? undefined : new URL(connectionString);
    return [
      {
        address: `${url?.hostname || host || "localhost"}:${url?.port || port || 5432}`,
        connectionString,
        host: connectionString === undefined ? host : undefined,
        port: connectionString === undefined ? port : undefined,
      },
    ];
  }
  return hosts.map(({ host, port }) => {
    const resolvedPort = port ?? options.port ?? 5432;
    const connectionString =
      options.connectionString === undefined
        ? undefined
        : overrideUrl(withHost(options.connectionString, host), options, { host, port: resolvedPort });
    return {
      address: `${host}:${resolvedPort}`,
      connectionString,
      host: connectionString === undefined ? host : undefined,
      port: connectionString === undefined ? resolvedPort : undefined,
    };
  });
}

/** A query parameter of the connection string (any host count), or undefined. */
export function urlParameter(connectionString: string | undefined, name: string): string | undefined {
  if (connectionString === undefined) return undefined;
  const parts = urlParts.exec(connectionString);
  const single = parts === null ? connectionString : withHost(connectionString, hostsOfUrl(connectionString)[0] ?? "localhost");
  try {
    return new URL(single).searchParams.get(name) ?? undefined;
  } catch {
    return undefined;
  }
}

/** The database a connection string (any host count) or the fields name, for messages. */
export function databaseNameOf(options: PostgresAddressOptions): string {
  if (options.database !== undefined) return options.database;
  const parts = options.connectionString === undefined ? null : urlParts.exec(options.connectionString);
  const path = parts === null ? "" : (/^\/([^?#]*)/.exec(parts[4])?.[1] ?? "");
  try {
    return decodeURIComponent(path) || options.user || "";
  } catch {
    return path;
  }
}
