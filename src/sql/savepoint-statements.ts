/**
 * The savepoint a multi-row INSERT runs in, inside the caller's transaction: undone when a key is taken, so
 * that each row can then be inserted on its own. The same SQL on every engine Tenon supports.
 */
export const rowsSavepoint = {
  /** Sets the savepoint. */
  set: "SAVEPOINT tenon_rows",
  /** Undoes what ran since it was set. */
  rollback: "ROLLBACK TO SAVEPOINT tenon_rows",
  /** Releases it. */
  release: "RELEASE SAVEPOINT tenon_rows",
} as const;
