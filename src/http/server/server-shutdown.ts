import { Server as NetServer } from "node:net";
import type { Server } from "node:http";

/** What the shutdown drives: the pipeline's count of requests in flight, and its `Connection: close` switch. @internal */
export interface InFlightRequests {
  whenIdle(): Promise<void>;
  /** Ends the streamed bodies being sent, whose clients would otherwise keep their requests in flight. */
  endStreams(): void;
  closing: boolean;
}

/** How long a shutdown waits for connections that are open but idle to send their request or go, in ms. */
const lingerMs = 250;
const pollMs = 10;

/**
 * Closes the node:http servers of a stopping `HttpServer` without failing a request that a client could not
 * know was refused. The order matters:
 *
 * 1. stop accepting connections, but keep the open ones: node:http's own `close()` also closes the idle
 *    ones at once, and a connection accepted a moment ago, or one whose client is writing its next request,
 *    looks idle; closing it resets a request the client has already sent;
 * 2. only then make every answer carry `Connection: close`: a client told to close before the listener
 *    closed would reconnect at once, and a connection waiting in the listener's queue when it closes is reset
 *    by the kernel after its request was sent; once the listener is closed, the reconnection is refused
 *    (ECONNREFUSED), which a client knows was never received;
 * 3. end the streamed bodies (a client of a stream reconnects, to another process), wait for the requests in flight, then (up to `lingerMs`) for the open connections to go by themselves;
 * 4. close the connections still idle, wait for requests that arrived meanwhile (all bounded by `graceMs`),
 *    and close whatever is left.
 * @internal
 */
export async function closeServers(servers: readonly Server[], requests: InFlightRequests, graceMs: number): Promise<void> {
  const closed = Promise.all(servers.map(stopListening));
  requests.closing = true;
  requests.endStreams();
  let timer: NodeJS.Timeout | undefined;
  let graceOver = false;
  const grace = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      graceOver = true;
      resolve();
    }, graceMs);
  });
  try {
    await Promise.race([requests.whenIdle(), grace]);
    const lingerEnd = Date.now() + lingerMs;
    while (!graceOver && Date.now() < lingerEnd && (await openConnections(servers)) > 0) {
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
    for (const server of servers) server.closeIdleConnections();
    await Promise.race([requests.whenIdle(), grace]);
  } finally {
    clearTimeout(timer);
  }
  for (const server of servers) server.closeAllConnections();
  await closed;
}

/** Stops accepting connections and resolves once every connection of the server has ended. */
function stopListening(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    // net.Server's close: the listening socket only (node:http's close would also drop idle connections now).
    NetServer.prototype.close.call(server, () => resolve());
  });
}

async function openConnections(servers: readonly Server[]): Promise<number> {
  const counts = await Promise.all(
    servers.map((server) => new Promise<number>((resolve) => server.getConnections((error, count) => resolve(error ? 0 : count)))),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}
