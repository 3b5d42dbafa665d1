import { isIP } from "node:net";
import { HttpServerError } from "../exchange/http-errors.js";
import { HttpMessages } from "../exchange/http-messages.js";
import { type MetricsEndpoint, type MetricsListener, openMetricsListener } from "./metrics-listener.js";
import { MetricsRecorder, type MetricsSources } from "./metrics-recorder.js";
import { OperationsMessages } from "./operations-messages.js";
import { collectProcessMetrics } from "./process-metrics.js";
import type { HttpPoolFigures } from "./pool-figures.js";

/**
 * Prometheus metrics of a server (`HttpServer.metrics`; docs/operations.md): served on a listener of their
 * own, never on the API's port, and only to callers with the token. Needs the optional peer dependency
 * `prom-client`.
 */
export interface HttpMetricsOptions {
  /** The port of the metrics listener (0: an ephemeral port, read back from `HttpServer.metricsPort`). */
  readonly port: number;
  /** The address it listens on (default `127.0.0.1`, this machine only); an IPv4 or IPv6 literal. */
  readonly bindAddress?: string;
  /** The path of the exposition (default `/metrics`). */
  readonly path?: string;
  /** The bearer token a scraper sends (`Authorization: Bearer <token>`), at least 16 characters: metrics are never anonymous. */
  readonly token: string;
  /** The connection pools to report (`DatabasePoolFigures` for a Tenon database). */
  readonly pools?: readonly HttpPoolFigures[];
  /** Also report Node's process figures (CPU, memory, event-loop delay, GC: prom-client's default metrics); default true. */
  readonly processMetrics?: boolean;
}

/**
 * Set in the environment of the workers that `runWorkers` starts with `metrics`: their servers do not listen
 * for scrapes themselves but answer the primary, which serves the sum of all workers. @internal
 */
export const clusterMetricsVariable = "TENON_CLUSTER_METRICS";

/** The options checked and completed; throws `HttpServerError` naming what is wrong. @internal */
export function checkedMetricsOptions(options: HttpMetricsOptions): Required<HttpMetricsOptions> {
  const port = options.port;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new HttpServerError(HttpMessages.invalidPort(port));
  const bindAddress = options.bindAddress ?? "127.0.0.1";
  if (isIP(bindAddress) === 0) throw new HttpServerError(HttpMessages.invalidBindAddress(bindAddress));
  const path = options.path ?? "/metrics";
  if (!path.startsWith("/") || path.includes("?")) throw new HttpServerError(OperationsMessages.metricsInvalidPath(path));
  const token = typeof options.token === "string" ? options.token : "";
  if (token.length < 16) throw new HttpServerError(OperationsMessages.metricsTokenTooShort(token.length));
  return Object.freeze({
    port,
    bindAddress,
    path,
    token,
    pools: Object.freeze([...(options.pools ?? [])]),
    processMetrics: options.processMetrics ?? true,
  });
}

type PromClient = typeof import("prom-client");

/** prom-client, loaded on first use; `HttpServerError` when it is not installed. @internal */
export async function loadPromClient(): Promise<PromClient> {
  try {
    return await import("prom-client");
  } catch (error) {
    throw new HttpServerError(OperationsMessages.metricsNeedPromClient, { cause: error });
  }
}

/** The metrics of a running server: the recorder the pipeline feeds, and where they are served. @internal */
export interface RunningMetrics {
  readonly recorder: MetricsRecorder;
  /** The port of the listener; 0 in a worker whose primary serves the aggregate. */
  readonly port: number;
  close(): Promise<void>;
}

const workerRegistries: import("prom-client").Registry[] = [];

/**
 * Creates the registry and recorder and serves them: on their own listener, or, in a worker started by
 * `runWorkers` with `metrics`, through prom-client's cluster protocol to the primary. @internal
 */
export async function startMetrics(options: Required<HttpMetricsOptions>, sources: MetricsSources): Promise<RunningMetrics> {
  const prom = await loadPromClient();
  const registry = new prom.Registry();
  const stopProcessMetrics = options.processMetrics ? collectProcessMetrics(prom, registry) : () => {};
  const recorder = new MetricsRecorder(registry, sources);
  if (process.env[clusterMetricsVariable] === "1") {
    // the primary asks every worker for its registries and serves their sum
    new prom.AggregatorRegistry();
    workerRegistries.push(registry);
    prom.AggregatorRegistry.setRegistries([...workerRegistries]);
    return {
      recorder,
      port: 0,
      close: async () => {
        stopProcessMetrics();
        workerRegistries.splice(workerRegistries.indexOf(registry), 1);
        prom.AggregatorRegistry.setRegistries([...workerRegistries]);
      },
    };
  }
  const endpoint: MetricsEndpoint = options;
  const listener: MetricsListener = await openMetricsListener(endpoint, async () => ({
    text: await registry.metrics(),
    contentType: registry.contentType,
  }));
  return {
    recorder,
    port: listener.port,
    close: () => {
      stopProcessMetrics();
      return listener.close();
    },
  };
}
