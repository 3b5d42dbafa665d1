import type { HttpRequest } from "./http-request.js";
import type { HttpResponse } from "./http-response.js";
import type { RequestObservation } from "./request-observation.js";

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
