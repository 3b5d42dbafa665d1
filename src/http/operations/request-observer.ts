import type { HttpRequest } from "../http-request.js";
import type { HttpResponse } from "../http-response.js";

/** What the operations features keep about one request while it runs. @internal */
export class RequestObservation {
  /** When the request entered the pipeline (`performance.now()`, ms). */
  readonly start: number;
  /** The route template that answered it (`/api/companies/?`), '' until one matched. */
  route = "";
  /** The tracing span of the request, when tracing is on. */
  span: unknown = undefined;
  /** The statements of the request and their durations, when the slow request log is on. */
  statements: { sql: string; durationMs: number; failed: boolean }[] | undefined = undefined;

  constructor(start: number) {
    this.start = start;
  }
}

/**
 * What the pipeline calls when operations features are on (metrics, tracing, the slow request log); the
 * pipeline holds none when they are all off, so that a plain server pays one comparison per request.
 * @internal
 */
export interface RequestObserver {
  /** A request entered the pipeline (its body read). */
  begin(request: HttpRequest): RequestObservation;
  /** Runs the request's resolution, authentication and handler inside its observation (trace context). */
  run<R>(observation: RequestObservation, request: HttpRequest, work: () => R): R;
  /** The answer was written. */
  end(observation: RequestObservation, request: HttpRequest, response: HttpResponse): void;
  /** The server stops: release what was taken at start. */
  close(): Promise<void>;
}
