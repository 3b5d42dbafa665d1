/**
 * What a rule of a policy grants: `read` (get, select, count, pages, lazy loads, detail lists, ETag checks),
 * `insert`, `update` (PUT, PATCH, undelete), `delete`, and the newer read paths, each granted on its own:
 * `aggregate` (aggregates), `export` (streaming exports) and `changes` (the change feed).
 */
export type PolicyOperation = "read" | "insert" | "update" | "delete" | "aggregate" | "export" | "changes";

/** Every operation, in a fixed order. */
export const policyOperations: readonly PolicyOperation[] = ["read", "insert", "update", "delete", "aggregate", "export", "changes"];
