import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { constantTimeEquals } from "../auth/constant-time.js";
import { HttpMessages, HttpStatus } from "../exchange/http-messages.js";
import { OperationsMessages } from "./operations-messages.js";

/** Where the metrics are served and with which credentials (already validated). @internal */
export interface MetricsEndpoint {
  readonly port: number;
  readonly bindAddress: string;
  readonly path: string;
  readonly token: string;
}

/** The exposition: its text and content type, rendered on each scrape. @internal */
export type RenderMetrics = () => Promise<{ readonly text: string; readonly contentType: string }>;

/** A running metrics listener. @internal */
export interface MetricsListener {
  /** The port bound. */
  readonly port: number;
  /** Stops listening and closes its connections. */
  close(): Promise<void>;
}

function answer(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  const text = JSON.stringify({ status, message: body });
  res.writeHead(status, { ...headers, "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/**
 * Serves `GET <path>` on its own listener, separate from the API's, to callers that send
 * `Authorization: Bearer <token>` (compared in constant time); anything else answers 401, 404 or 405 with the
 * JSON error body. Used by `HttpServer.metrics` and, for the workers' aggregate, by `runWorkers`.
 * @internal
 */
export async function openMetricsListener(endpoint: MetricsEndpoint, render: RenderMetrics): Promise<MetricsListener> {
  const expected = `Bearer ${endpoint.token}`;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== endpoint.path) return answer(res, HttpStatus.notFound, HttpMessages.commandNotFound(path));
    if (!constantTimeEquals(req.headers.authorization ?? "", expected)) {
      return answer(res, HttpStatus.unauthorized, OperationsMessages.metricsUnauthorized, { "www-authenticate": 'Bearer realm="metrics"' });
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      return answer(res, HttpStatus.methodNotAllowed, OperationsMessages.metricsMethodNotAllowed(req.method ?? ""), { allow: "GET, HEAD" });
    }
    render().then(
      ({ text, contentType }) => {
        res.writeHead(HttpStatus.ok, { "content-type": contentType, "content-length": Buffer.byteLength(text) });
        res.end(text);
      },
      () => answer(res, HttpStatus.internalServerError, OperationsMessages.metricsFailed),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host: endpoint.bindAddress, port: endpoint.port }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    port: typeof address === "object" && address !== null ? address.port : endpoint.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
