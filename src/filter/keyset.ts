import type { ColumnMapping } from "../mapping/entity-mapping.js";
import type { Condition, OrderByItem } from "./condition.js";

/**
 * Keyset paging (a page that starts after a given row instead of after a number of rows): the full order of
 * a filter and the condition "comes after these values in that order". NULL is the lowest value on every
 * engine (the statement builder renders `NULLS FIRST` / `NULLS LAST` where an engine's default differs), so
 * the condition treats it that way too. Values are bound as parameters like any filter value.
 */

/** The order a page is read in: the filter's items, then the primary key ascending unless already listed (the tie-break). */
export function keysetOrder(primaryKey: ColumnMapping, orderBy: readonly OrderByItem[]): OrderByItem[] {
  const order = orderBy.slice();
  if (!order.some((item) => item.column === primaryKey)) order.push({ column: primaryKey, direction: "ASC" });
  return order;
}

/**
 * The condition that holds for the rows after the row whose order values are `values` (one per order item,
 * `null` for NULL): `(c1 > v1) OR (c1 = v1 AND c2 > v2) OR ...`, each comparison reading NULL as lowest.
 * Undefined when no row can follow (the last item is a DESC column whose value is NULL and nothing before it
 * can advance).
 */
export function keysetCondition(order: readonly OrderByItem[], values: readonly unknown[]): Condition | undefined {
  const branches: Condition[] = [];
  for (let i = 0; i < order.length; i++) {
    const step = follows(order[i], values[i]);
    if (step === undefined) continue;
    const equal: Condition[] = [];
    for (let j = 0; j < i; j++) equal.push(equals(order[j].column, values[j]));
    branches.push(equal.length === 0 ? step : { kind: "and", conditions: [...equal, step] });
  }
  if (branches.length === 0) return undefined;
  if (branches.length === 1) return branches[0];
  const after: Condition = { kind: "or", conditions: branches };
  // The OR alone makes engines scan the order's index from its start; the bound it implies on the first
  // column (c1 >= v1 ascending) lets them seek to the cursor's row instead, so a far page costs what the first does.
  const bound = leadingBound(order[0], values[0]);
  return bound === undefined ? after : { kind: "and", conditions: [bound, after] };
}

/** The range on the first order column that every row after the cursor lies in, where it narrows anything. */
function leadingBound(item: OrderByItem, value: unknown): Condition | undefined {
  const column = item.column;
  if (item.direction === "ASC") return value === null ? undefined : { kind: "compare", column, operator: ">=", value };
  if (value === null) return { kind: "null", column, negated: false };
  const atMost: Condition = { kind: "compare", column, operator: "<=", value };
  return column.type.nullable ? undefined : atMost;
}

function equals(column: ColumnMapping, value: unknown): Condition {
  return value === null ? { kind: "null", column, negated: false } : { kind: "compare", column, operator: "=", value };
}

/** "Comes after `value`" on one column, NULL lowest; undefined when nothing can. */
function follows(item: OrderByItem, value: unknown): Condition | undefined {
  const column = item.column;
  if (item.direction === "ASC") {
    return value === null ? { kind: "null", column, negated: true } : { kind: "compare", column, operator: ">", value };
  }
  if (value === null) return undefined;
  const below: Condition = { kind: "compare", column, operator: "<", value };
  return column.type.nullable ? { kind: "or", conditions: [below, { kind: "null", column, negated: false }] } : below;
}
