/**
 * The one hook through which the ORM side reports its SQL statements and retries to whoever watches them
 * (metrics, tracing, the slow request log of `tenon/http`). It lives on the ground floor so that the session
 * can call it and the HTTP core can implement it without either importing the other. Unset, it costs one
 * property read per connection a session takes and per retry.
 */
export interface StatementObserver {
  /**
   * A statement starts: `sql` is its text with placeholders, never its parameters; `system` the engine
   * (`sqlite`, `postgres`, `mariadb`: the dialect's name). Answers a token handed
   * back to `statementEnded` (a start time, a span), or undefined. A token may be dropped without
   * `statementEnded` when the engine declined to run the statement at once (it then runs, and is reported,
   * again). Must not throw.
   */
  statementStarted(sql: string, system: string): unknown;
  /** The statement of `token` ended; `error` is what it failed with, undefined when it succeeded. Must not throw. */
  statementEnded(token: unknown, error: unknown): void;
  /** A unit of work is run again after the transient failure `error` (see `RetryPolicy`). Must not throw. */
  retried(error: unknown): void;
}

/** Several observers as one. */
class ObserverList implements StatementObserver {
  readonly #observers: readonly StatementObserver[];

  constructor(observers: readonly StatementObserver[]) {
    this.#observers = observers;
  }

  statementStarted(sql: string, system: string): unknown {
    return this.#observers.map((observer) => observer.statementStarted(sql, system));
  }

  statementEnded(token: unknown, error: unknown): void {
    const tokens = token as unknown[];
    for (let i = 0; i < this.#observers.length; i++) this.#observers[i].statementEnded(tokens[i], error);
  }

  retried(error: unknown): void {
    for (const observer of this.#observers) observer.retried(error);
  }
}

const registered: StatementObserver[] = [];

/**
 * The observer the session reports to: undefined while nobody watches (the session then runs its statements
 * untouched), the registered one, or all of them as one. @internal
 */
export const statementObservation: { current: StatementObserver | undefined } = { current: undefined };

function refresh(): void {
  statementObservation.current =
    registered.length === 0 ? undefined : registered.length === 1 ? registered[0] : new ObserverList([...registered]);
}

/**
 * Starts reporting every statement of this process to `observer` (sessions that already hold a connection
 * report from their next connection on). Answers the function that stops it.
 */
export function observeStatements(observer: StatementObserver): () => void {
  registered.push(observer);
  refresh();
  return () => {
    const index = registered.indexOf(observer);
    if (index >= 0) registered.splice(index, 1);
    refresh();
  };
}
