import { observeStatements } from "../../observation/statement-observer.js";
import type { HttpRequest } from "../http-request.js";
import type { HttpResponse } from "../http-response.js";
import type { RunningMetrics } from "./http-metrics.js";
import { RequestObservation, type RequestObserver } from "./request-observer.js";

/**
 * The operations features a running server switched on, as the one observer its pipeline calls: it times
 * each request, feeds the metrics, and reports the session's statements to them.
 * @internal
 */
export class OperationsObserver implements RequestObserver {
  readonly #metrics: RunningMetrics | undefined;
  readonly #stopObserving: (() => void)[] = [];

  constructor(metrics: RunningMetrics | undefined) {
    this.#metrics = metrics;
    if (metrics !== undefined) this.#stopObserving.push(observeStatements(metrics.recorder));
  }

  /** @inheritdoc */
  begin(_request: HttpRequest): RequestObservation {
    return new RequestObservation(performance.now());
  }

  /** @inheritdoc */
  run<R>(_observation: RequestObservation, _request: HttpRequest, work: () => R): R {
    return work();
  }

  /** @inheritdoc */
  end(observation: RequestObservation, request: HttpRequest, response: HttpResponse): void {
    this.#metrics?.recorder.recordRequest(observation, request, response);
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    for (const stop of this.#stopObserving.splice(0)) stop();
    await this.#metrics?.close();
  }
}
