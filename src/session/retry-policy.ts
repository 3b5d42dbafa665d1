import { TransientDatabaseError } from "../errors.js";
import { statementObservation } from "../observation/statement-observer.js";

/**
 * How a unit of work is run again after a transient database failure (a serialization or certification
 * failure, a deadlock, a lost connection, a busy file) whose retry is safe. The delay before retry n (1, 2...)
 * is drawn uniformly between 0 and min(`maxDelayMs`, `baseDelayMs` * 2^(n-1)) ("full jitter"), so that
 * clients that collided do not collide again in step.
 */
export interface RetryPolicy {
  /** How many times the unit is run again after its first failure (0: never). */
  readonly retries: number;
  /** The upper bound of the first delay, in milliseconds; it doubles with every retry. */
  readonly baseDelayMs: number;
  /** The upper bound of any delay, in milliseconds. */
  readonly maxDelayMs: number;
}

/** Tenon's default: 3 retries after delays of at most 25, 50 and 100 ms (see `RetryPolicy`). */
export const defaultRetryPolicy: RetryPolicy = Object.freeze({ retries: 3, baseDelayMs: 25, maxDelayMs: 1000 });

/**
 * The default of the HTTP writers of an entity with `@ChangeFeed`: 8 retries after delays of at most 25, 50, 100,
 * 200, 400, 800, 1000 and 1000 ms. Such writes take the change counter's row lock at COMMIT, so concurrent ones
 * contend there; on a Galera cluster whose nodes all take writes, the losers fail certification and must retry.
 */
export const changeFeedRetryPolicy: RetryPolicy = Object.freeze({ retries: 8, baseDelayMs: 25, maxDelayMs: 1000 });

/**
 * A retry setting as the API takes it: `true` for `defaultRetryPolicy`, `false` or 0 for none, a number
 * for that many retries with the default delays, or a policy whose absent fields take the defaults.
 */
export type RetryOption = boolean | number | Partial<RetryPolicy>;

/** The policy a `RetryOption` stands for; undefined for no retry. */
export function retryPolicyOf(option: RetryOption | undefined): RetryPolicy | undefined {
  if (option === undefined || option === false || option === 0) return undefined;
  if (option === true) return defaultRetryPolicy;
  if (typeof option === "number") return { ...defaultRetryPolicy, retries: option };
  const policy = { ...defaultRetryPolicy, ...option };
  return policy.retries > 0 ? policy : undefined;
}

/** The delay before retry `retry` (1 for the first), drawn with full jitter. */
export function retryDelay(policy: RetryPolicy, retry: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.random() * Math.max(0, ceiling);
}

/** Whether a failure may be retried: a transient database failure that left nothing behind. */
export function isRetryable(error: unknown): error is TransientDatabaseError {
  return error instanceof TransientDatabaseError && error.retrySafe;
}

/**
 * Runs `work`, and runs it again after a failure that `isRetryable` accepts, up to the policy's retries,
 * calling `recover` with the failure before each wait. Any other failure, and the last one, is thrown as is.
 */
export function runWithRetry<R>(policy: RetryPolicy, work: () => Promise<R>, recover: (error: TransientDatabaseError) => void): Promise<R> {
  return retryAfter(policy, work, recover, 1);
}

/**
 * `runWithRetry` for work that may finish at once: its value when the first attempt answers one (no promise, no
 * reaction), its promise when it answers one, and the retries (always after a wait) once an attempt fails.
 */
export function runWithRetryNow<R>(
  policy: RetryPolicy,
  work: () => R | Promise<R>,
  recover: (error: TransientDatabaseError) => void,
): R | Promise<R> {
  let first: R | Promise<R>;
  try {
    first = work();
  } catch (error) {
    return retryFailed(policy, work, recover, error, 1);
  }
  if (!(first instanceof Promise)) return first;
  return first.catch((failure: unknown) => retryFailed(policy, work, recover, failure, 1));
}

/** The attempts of `runWithRetry` from attempt `retry` (1 for the first) on. */
async function retryAfter<R>(
  policy: RetryPolicy,
  work: () => R | Promise<R>,
  recover: (error: TransientDatabaseError) => void,
  retry: number,
): Promise<R> {
  try {
    return await work();
  } catch (error) {
    return retryFailed(policy, work, recover, error, retry);
  }
}

/** After failed attempt `retry`: thrown on when it may not be retried, otherwise recovered from, waited for and retried. */
async function retryFailed<R>(
  policy: RetryPolicy,
  work: () => R | Promise<R>,
  recover: (error: TransientDatabaseError) => void,
  error: unknown,
  retry: number,
): Promise<R> {
  if (retry > policy.retries || !isRetryable(error)) throw error;
  recover(error);
  statementObservation.current?.retried(error);
  await new Promise((resolve) => setTimeout(resolve, retryDelay(policy, retry)));
  return retryAfter(policy, work, recover, retry + 1);
}
