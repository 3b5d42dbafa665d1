import type { Filter } from "../filter/filter.js";
import type { EntityClass } from "../mapping/column-type.js";
import { EntityMapping } from "../mapping/entity-mapping.js";
import { countAtMost, countEstimate } from "../sql/count-statements.js";
import type { Dialect } from "../sql/dialect.js";
import type { CompiledStatement } from "../sql/entity-statements.js";
import type { SessionConnection } from "./session-connection.js";
import { sessionStatements, sessionTenant, type TenantSource } from "./tenant-scope.js";
import type { PolicyLookup } from "./policy-scope.js";

/**
 * How rows are counted: `exact` every row; `estimated` from the engine's statistics (PostgreSQL's and MariaDB's
 * planners; SQLite keeps none and counts exactly); `{ atMost: n }` exactly up to `n`, and `n` "at least" beyond.
 */
export type CountMode = "exact" | "estimated" | { readonly atMost: number };

/** A count and what it is: `exact`, `estimated` (the planner's figure), or `atLeast` (a count stopped at its ceiling). */
export interface RowCount {
  /** The number. */
  readonly count: number;
  /** What the number is. */
  readonly kind: "exact" | "estimated" | "atLeast";
}

/**
 * Counts the rows a filter matches in the way `mode` says, on a session's connection, with a select's scoping (of an
 * entity with a `@Policy`, the rows its rules let the caller read, always counted: the planner's estimate would be
 * the whole table's).
 */
export async function countRows<T extends object>(
  dialect: Dialect,
  connection: SessionConnection,
  tenants: TenantSource & PolicyLookup,
  entityClass: EntityClass<T>,
  filter: Filter | undefined,
  mode: CountMode,
): Promise<RowCount> {
  const mapping = EntityMapping.of(entityClass);
  const statements = sessionStatements(tenants, mapping, dialect);
  const guard = mapping.hasPolicy ? tenants.callerPolicy(mapping)?.rows("read") : undefined;
  const where = statements.where(filter, sessionTenant(tenants, mapping), guard);
  const run = async (statement: CompiledStatement): Promise<unknown[][]> =>
    (connection.now() ?? (await connection.acquire())).query(statement.sql, statement.parameters, false);
  if (typeof mode === "object") {
    const max = Math.max(0, Math.trunc(mode.atMost));
    const count = Number((await run(countAtMost(statements, where, max)))[0][0]);
    return count > max ? { count: max, kind: "atLeast" } : { count, kind: "exact" };
  }
  if (mode === "estimated" && guard === undefined) {
    const estimate = countEstimate(statements, where);
    const rows = estimate === undefined ? undefined : dialect.rowEstimate?.rows(await run(estimate));
    if (rows !== undefined) return { count: rows, kind: "estimated" };
  }
  return { count: Number((await run(statements.count(filter, where)))[0][0]), kind: "exact" };
}
