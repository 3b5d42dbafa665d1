import type { RetryOption } from "./retry-policy.js";

/** Options of a read by primary key. */
export interface GetOptions {
  /** Read a soft-deleted row too (needed to undelete it). */
  readonly includeDeleted?: boolean;
}

/** Options of `Context.transaction`. */
export interface TransactionOptions {
  /**
   * Run the whole transaction again after a transient failure whose retry is safe (see `RetryPolicy`;
   * `true` for the default policy). Ignored by a transaction that joins an outer one: the outer decides.
   */
  readonly retry?: RetryOption;
}
