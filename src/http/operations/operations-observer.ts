import { performance } from "node:perf_hooks";
import { observeStatements } from "../../observation/statement-observer.js";
import type { HttpRequest } from "../exchange/http-request.js";
import type { HttpResponse } from "../exchange/http-response.js";
import type { HttpLogger } from "../logging/http-logger.js";
import { type HttpMetricsOptions, type RunningMetrics, startMetrics } from "./http-metrics.js";
import { HttpTracing, loadOpenTelemetry } from "./http-tracing.js";
import { SlowRequestLog } from "./slow-request-log.js";
import { RequestObservation } from "../exchange/request-observation.js";
import type { RequestObserver } from "../exchange/request-observer.js";

/**
 * The operations features a running server switched on, as the one observer its pipeline calls: it times
 * each request, feeds the metrics, traces it, collects its statements for the slow request log, and
 * reports the session's statements to each.
 * @internal
 */
export class OperationsObserver implements RequestObserver {
  readonly #metrics: RunningMetrics | undefined;
  readonly #tracing: HttpTracing | undefined;
  readonly #slowLog: SlowRequestLog | undefined;
  readonly #stopObserving: (() => void)[] = [];
  /** @inheritdoc */
  readonly wrapsDispatch: boolean;

  constructor(metrics: RunningMetrics | undefined, tracing: HttpTracing | undefined, slowLog: SlowRequestLog | undefined) {
    this.#metrics = metrics;
    this.#tracing = tracing;
    this.#slowLog = slowLog;
    this.wrapsDispatch = tracing !== undefined || slowLog !== undefined;
    if (metrics !== undefined) this.#stopObserving.push(observeStatements(metrics.recorder));
    if (tracing !== undefined) this.#stopObserving.push(observeStatements(tracing));
    if (slowLog !== undefined) this.#stopObserving.push(observeStatements(slowLog));
  }

  /** @inheritdoc */
  begin(request: HttpRequest): RequestObservation {
    const observation = new RequestObservation(performance.now());
    this.#tracing?.begin(observation, request);
    this.#slowLog?.begin(observation);
    return observation;
  }

  /** @inheritdoc */
  run<R>(observation: RequestObservation, _request: HttpRequest, work: () => R): R {
    const tracing = this.#tracing;
    const slowLog = this.#slowLog;
    const collected = slowLog === undefined ? work : () => slowLog.run(observation, work);
    return tracing === undefined ? collected() : tracing.run(observation, collected);
  }

  /** @inheritdoc */
  end(observation: RequestObservation, request: HttpRequest, response: HttpResponse): void {
    this.#slowLog?.end(observation);
    this.#metrics?.recorder.recordRequest(observation, request, response);
    this.#tracing?.end(observation, request, response);
  }

  /** The port the metrics are served on (0 without metrics, or in a worker whose primary serves them). */
  get metricsPort(): number {
    return this.#metrics?.port ?? 0;
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    for (const stop of this.#stopObserving.splice(0)) stop();
    await this.#metrics?.close();
  }
}

/** What `HttpServer.start()` hands over to start the operations features. @internal */
export interface OperationsSettings {
  readonly metrics: Required<HttpMetricsOptions> | undefined;
  readonly tracing: boolean;
  readonly slowRequestThreshold: number;
  readonly logger: HttpLogger<HttpRequest, HttpResponse> | undefined;
  /** Requests in flight now (read when metrics are scraped). */
  readonly inFlight: () => number;
}

/**
 * Starts the operations features that are switched on (prom-client and `@opentelemetry/api` are loaded here,
 * at start, never before); undefined when none is, so that the pipeline holds no observer at all.
 * @internal
 */
export async function startOperations(settings: OperationsSettings): Promise<OperationsObserver | undefined> {
  const api = settings.tracing ? await loadOpenTelemetry() : undefined;
  const tracing = api === undefined ? undefined : new HttpTracing(api);
  const slowLog = settings.slowRequestThreshold > 0 ? new SlowRequestLog(settings.slowRequestThreshold) : undefined;
  const options = settings.metrics;
  if (options === undefined && tracing === undefined && slowLog === undefined) return undefined;
  const logger = settings.logger;
  const metrics =
    options === undefined
      ? undefined
      : await startMetrics(options, {
          inFlight: settings.inFlight,
          log:
            logger === undefined
              ? undefined
              : () => ({ writer: logger.writerClass.name, queueDepth: logger.queueDepth, discarded: logger.discardedTotal }),
          pools: options.pools,
        });
  return new OperationsObserver(metrics, tracing, slowLog);
}
