import { createServer, type Server, type ServerOptions } from "node:http";
import type { Socket } from "node:net";
import { type ConnectionGuardSettings, guardConnections } from "./connection-guard.js";

/** The timers of the node:http servers, as the `HttpServer` settings of the same names give them. @internal */
export interface ServerTimers {
  readonly headersTimeout: number;
  readonly keepAliveTimeout: number;
}

/**
 * Opens one guarded node:http server per address, each pushed onto `servers` as soon as it is made (so that
 * the caller closes what did open when a later address fails), and answers the port bound: the first
 * address binds `port` (0: an ephemeral one), the others the port the first got. `::` beside `0.0.0.0`
 * listens on IPv6 only. @internal
 */
export async function listenAll(
  servers: Server[],
  addresses: readonly string[],
  port: number,
  timers: ServerTimers,
  guard: ConnectionGuardSettings,
): Promise<number> {
  const ipv4Wildcard = addresses.includes("0.0.0.0");
  for (const address of addresses) {
    const server = createServer(serverOptionsOf(timers), guard.onRequest);
    server.on("connection", readPeer);
    guardConnections(server, guard);
    servers.push(server);
    port = await listen(server, address, port, address === "::" && ipv4Wildcard);
  }
  return port;
}

/**
 * Reads a connection's peer address as it opens: node keeps it on the socket from then on, also after the
 * connection closed, so a request reads it only when something asks (`HttpRequest.remoteIp`), however late.
 */
function readPeer(socket: Socket): void {
  void socket.remoteAddress;
}

/**
 * node:http's own timers: headers as configured (checked often enough to honour a timeout of a few
 * seconds; node checks every 30 s by default), keep-alive as configured, no whole-request timeout, which
 * would cut a slow upload that the body watch lets progress, and the missing-Host 400 left to the pipeline,
 * which answers it with the JSON body.
 */
function serverOptionsOf(timers: ServerTimers): ServerOptions {
  const headersTimeout = timers.headersTimeout;
  return {
    headersTimeout,
    requestTimeout: 0,
    requireHostHeader: false,
    keepAliveTimeout: timers.keepAliveTimeout,
    connectionsCheckingInterval: headersTimeout > 0 ? Math.max(100, Math.min(1000, Math.floor(headersTimeout / 4))) : 30000,
  };
}

/** Listens on one address; answers the port bound. */
function listen(server: Server, host: string, port: number, ipv6Only: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once("error", onError);
    server.listen({ host, port, ipv6Only }, () => {
      server.off("error", onError);
      const address = server.address();
      resolve(typeof address === "object" && address !== null ? address.port : port);
    });
  });
}

/** Stops a server listening (nothing when it does not). @internal */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
  });
}
