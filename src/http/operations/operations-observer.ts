import { observeStatements } from "../../observation/statement-observer.js";
import type { HttpRequest } from "../http-request.js";
import type { HttpResponse } from "../http-response.js";
import type { RunningMetrics } from "./http-metrics.js";
import type { HttpTracing } from "./http-tracing.js";
import type { SlowRequestLog } from "./slow-request-log.js";
import { RequestObservation, type RequestObserver } from "./request-observer.js";

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

  constructor(metrics: RunningMetrics | undefined, tracing: HttpTracing | undefined, slowLog: SlowRequestLog | undefined) {
    this.#metrics = metrics;
    this.#tracing = tracing;
    this.#slowLog = slowLog;
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

  /** @inheritdoc */
  async close(): Promise<void> {
    for (const stop of this.#stopObserving.splice(0)) stop();
    await this.#metrics?.close();
  }
}
