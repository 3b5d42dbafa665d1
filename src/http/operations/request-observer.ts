import type { HttpRequest } from "../http-request.js";
import type { HttpResponse } from "../http-response.js";

/** One statement of a request, as the slow request log lists it. */
export interface SlowStatement {
  /** The statement text, with placeholders: parameter values are never logged. */
  readonly sql: string;
  /** How long it took, in milliseconds. */
  readonly durationMs: number;
  /** True when it failed. */
  readonly failed: boolean;
}

/** What the response record of a slow request carries (`HttpServer.slowRequestThreshold`). */
export interface SlowRequest {
  /** The request's time from its body read to its answer written, in milliseconds. */
  readonly durationMs: number;
  /** Its statements in the order run (the first 100). */
  readonly statements: readonly SlowStatement[];
  /** The statements beyond the first 100, counted, not listed. */
  readonly statementsOmitted: number;
}

/** What the operations features keep about one request while it runs. @internal */
export class RequestObservation {
  /** When the request entered the pipeline (`performance.now()`, ms). */
  readonly start: number;
  /** The route template that answered it (`/api/companies/?`), '' until one matched. */
  route = "";
  /** The tracing span of the request, when tracing is on. */
  span: unknown = undefined;
  /** The statements of the request and their durations, when the slow request log is on. */
  statements: SlowStatement[] | undefined = undefined;
  /** Set when the request was slower than the threshold: what its response log record carries. */
  slow: SlowRequest | undefined = undefined;

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
  /** Whether `run` does anything but call its work (tracing, the slow request log); false spares a closure per request. */
  readonly wrapsDispatch: boolean;
  /** A request entered the pipeline (its body read). */
  begin(request: HttpRequest): RequestObservation;
  /** Runs the request's resolution, authentication and handler inside its observation (trace context). */
  run<R>(observation: RequestObservation, request: HttpRequest, work: () => R): R;
  /** The answer was written (and is about to be logged). */
  end(observation: RequestObservation, request: HttpRequest, response: HttpResponse): void;
  /** The server stops: release what was taken at start. */
  close(): Promise<void>;
}
