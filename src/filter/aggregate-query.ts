import type { AggregateFunction, DateTruncation } from "../mapping/aggregate-decorator.js";
import type { ColumnMapping } from "../mapping/entity-mapping.js";
import type { ComparisonOperator } from "./condition.js";
import type { Filter } from "./filter.js";

export type { AggregateFunction, DateTruncation };
export { dateTruncations } from "../mapping/aggregate-decorator.js";

/**
 * One group of an aggregate: a column of the entity, a column of the entity a `Lazy` reference points to
 * (`through` is then the reference), or a date column truncated to a period. Not yet SQL.
 */
export interface AggregateGroup {
  /** The name the group's value has in each answered row. */
  readonly name: string;
  /** The column grouped by (of the referenced entity when `through` is set). */
  readonly column: ColumnMapping;
  /** The `Lazy` reference of the entity whose referenced row holds `column`. */
  readonly through?: ColumnMapping;
  /** The period a date column is truncated to. */
  readonly truncate?: DateTruncation;
}

/** One metric of an aggregate: a function of a column, or `count` of the rows (no column). */
export interface AggregateMetric {
  /** The name (alias) the metric's value has in each answered row. */
  readonly name: string;
  /** The function. */
  readonly fn: AggregateFunction;
  /** The column measured; undefined only for `count`, which then counts rows. */
  readonly column: ColumnMapping | undefined;
}

/** A group or a metric of an aggregate, by position. */
export type AggregateTerm = { readonly kind: "group"; readonly index: number } | { readonly kind: "metric"; readonly index: number };

/**
 * A condition on the metrics of each group (HAVING), with values already of the metric's value type
 * (`metricValueType`). Rendered with bound parameters, like a filter's conditions.
 */
export type HavingCondition =
  | {
      readonly kind: "compare";
      readonly metric: number;
      readonly operator: Exclude<ComparisonOperator, "LIKE" | "NOT LIKE">;
      readonly value: unknown;
    }
  | { readonly kind: "null"; readonly metric: number; readonly negated: boolean }
  | { readonly kind: "in"; readonly metric: number; readonly values: readonly unknown[] }
  | { readonly kind: "and" | "or"; readonly conditions: readonly HavingCondition[] };

/** One ORDER BY item of an aggregate. */
export interface AggregateOrderItem {
  /** The group or metric ordered by. */
  readonly term: AggregateTerm;
  /** The direction; NULL is the lowest value, as in every order of Tenon. */
  readonly direction: "ASC" | "DESC";
}

/**
 * A question asked of an entity's rows: the rows a filter selects (its conditions, soft-delete and tenant rules
 * as a select's), grouped, measured, the groups filtered by `having`, ordered and paged. Built by the HTTP
 * aggregate body or by `Context.aggregate`; the statement builder renders it with every value bound.
 */
export interface AggregateQuery {
  /** The rows measured (its order and page are ignored). */
  readonly filter: Filter;
  /** The groups, in answer order; none: one row over every row the filter selects. */
  readonly groups: readonly AggregateGroup[];
  /** The metrics, in answer order (at least one). */
  readonly metrics: readonly AggregateMetric[];
  /** The conditions on metrics, ANDed. */
  readonly having: readonly HavingCondition[];
  /** The order of the groups; every group follows ascending (the tie-break that makes pages stable). */
  readonly orderBy: readonly AggregateOrderItem[];
  /** Groups to answer at most; undefined answers all. */
  readonly limit: number | undefined;
  /** The order values of the last group of the page before (`AggregatePage.next`): the page starts after it. */
  readonly after: readonly unknown[] | undefined;
}

/**
 * The value type of a metric's answer: `count` a number of rows; `integer` an exact sum of int32 values (a
 * number); `int64` an exact sum of int64 values (a bigint); `float` a double; `decimal` exact decimal text
 * with `scale` digits after the point; `column` a value of the column's own type (min and max).
 */
export type MetricValueType =
  | { readonly kind: "count" }
  | { readonly kind: "integer" }
  | { readonly kind: "int64" }
  | { readonly kind: "float" }
  | { readonly kind: "decimal"; readonly scale: number }
  | { readonly kind: "column"; readonly column: ColumnMapping };

/** Digits an average of a decimal column has beyond the column's scale. */
export const averageExtraScale = 4;

/**
 * The value type of a metric: counts are numbers; a sum has the column's kind (int32 sums are numbers, int64
 * sums bigints, decimal sums exact decimal text with the column's scale); an average of a decimal column is
 * decimal text with `averageExtraScale` more digits, rounded half away from zero, of other numbers a double;
 * min and max have the column's type.
 */
export function metricValueType(metric: AggregateMetric): MetricValueType {
  const column = metric.column;
  if (metric.fn === "count" || metric.fn === "countDistinct" || column === undefined) return { kind: "count" };
  if (metric.fn === "min" || metric.fn === "max") return { kind: "column", column };
  const kind = column.type.kind;
  const scale = column.type.scale ?? 0;
  if (metric.fn === "avg") return kind === "decimal" ? { kind: "decimal", scale: scale + averageExtraScale } : { kind: "float" };
  if (kind === "decimal") return { kind: "decimal", scale };
  if (kind === "int64") return { kind: "int64" };
  return kind === "float" ? { kind: "float" } : { kind: "integer" };
}

/** The complete order of an aggregate's groups: the query's items, then every group not yet ordered by, ascending. */
export function aggregateOrder(query: Pick<AggregateQuery, "groups" | "orderBy">): AggregateOrderItem[] {
  const order = query.orderBy.slice();
  for (let index = 0; index < query.groups.length; index++) {
    if (!order.some((item) => item.term.kind === "group" && item.term.index === index))
      order.push({ term: { kind: "group", index }, direction: "ASC" });
  }
  return order;
}
