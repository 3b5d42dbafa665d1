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
