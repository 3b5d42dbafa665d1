import { AsyncLocalStorage } from "node:async_hooks";
import { performance } from "node:perf_hooks";
import type { StatementObserver } from "../../observation/statement-observer.js";
import type { RequestObservation } from "../exchange/request-observation.js";

/** The statements a slow request's log record lists at most; more are counted, not listed. */
export const maxLoggedStatements = 100;

/** A statement in flight: whose request it belongs to, its text and start. */
interface StatementToken {
  readonly observation: RequestObservation;
  readonly sql: string;
  readonly start: number;
}

/**
 * The slow request log (`HttpServer.slowRequestThreshold`; docs/operations.md): collects each request's
 * statements with their durations (through an `AsyncLocalStorage` that the request's handler runs in) and,
 * when the request took at least the threshold, hands them to its response log record. Statement texts have
 * placeholders; parameter values are never collected.
 * @internal
 */
export class SlowRequestLog implements StatementObserver {
  readonly #thresholdMs: number;
  readonly #current = new AsyncLocalStorage<RequestObservation>();

  constructor(thresholdMs: number) {
    this.#thresholdMs = thresholdMs;
  }

  /** A request starts: its statements are collected from now on. */
  begin(observation: RequestObservation): void {
    observation.statements = [];
  }

  /** Runs the request's work so that its statements find it. */
  run<R>(observation: RequestObservation, work: () => R): R {
    return this.#current.run(observation, work);
  }

  /** The request was answered: over the threshold, its record gets the duration and the statements. */
  end(observation: RequestObservation): void {
    const durationMs = performance.now() - observation.start;
    const statements = observation.statements ?? [];
    if (durationMs < this.#thresholdMs) return;
    observation.slow = {
      durationMs: round(durationMs),
      statements: statements.slice(0, maxLoggedStatements),
      statementsOmitted: Math.max(0, statements.length - maxLoggedStatements),
    };
  }

  /** @inheritdoc */
  statementStarted(sql: string): unknown {
    const observation = this.#current.getStore();
    return observation === undefined ? undefined : ({ observation, sql, start: performance.now() } satisfies StatementToken);
  }

  /** @inheritdoc */
  statementEnded(token: unknown, error: unknown): void {
    if (token === undefined) return;
    const { observation, sql, start } = token as StatementToken;
    observation.statements?.push({ sql, durationMs: round(performance.now() - start), failed: error !== undefined });
  }

  /** @inheritdoc */
  retried(): void {}
}

/** Milliseconds to the microsecond, for the log. */
function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
