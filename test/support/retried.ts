// A test's own reads of a server that a fault may have just cut (a Galera node stopped behind HAProxy, a
// restarted PgBouncer): tried again on a fresh connection rather than failing the test on a transient error.

/** Options of `retried`. */
export interface RetryOptions {
  /** Attempts in all (default 10). */
  readonly attempts?: number;
  /** Milliseconds between attempts (default 500). */
  readonly pauseMs?: number;
}

/**
 * Runs `attempt` until it resolves, at most `attempts` times, with a pause between tries; rejects with the
 * last error. `attempt` must open its own connection, so that a retry never reuses the one that broke.
 */
export async function retried<T>(attempt: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = options.attempts ?? 10;
  let last: unknown;
  for (let tried = 1; tried <= attempts; tried++) {
    try {
      return await attempt();
    } catch (error) {
      last = error;
      if (tried < attempts) await new Promise((resolve) => setTimeout(resolve, options.pauseMs ?? 500));
    }
  }
  throw new Error(`failed ${attempts} times, last: ${(last as Error)?.message ?? String(last)}`, { cause: last });
}
