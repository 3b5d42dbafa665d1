import { TenonError } from "../errors.js";
import { groupFitsType, metricFitsType } from "../mapping/aggregate-decorator.js";
import type { EntityClass } from "../mapping/column-type.js";
import { type ColumnMapping, EntityMapping } from "../mapping/entity-mapping.js";
import { Lazy } from "../mapping/lazy.js";
import { exactDecimalOf } from "../values/decimal-text.js";
import {
  type AggregateFunction,
  type AggregateGroup,
  type AggregateMetric,
  type AggregateOrderItem,
  type AggregateQuery,
  type DateTruncation,
  type HavingCondition,
  metricValueType,
} from "./aggregate-query.js";
import type { FilterProperty, FilterValue } from "./filter-builder.js";
import { Filter } from "./filter.js";
import { FilterMessages } from "./filter-messages.js";

/**
 * A group of `Context.aggregate`: a property of `T`; a date property truncated to a period; or a property of the
 * entity a `Lazy` property references (answered as `<reference>.<property>` unless `as` names it).
 */
export type AggregateGroupSpec<T> =
  | FilterProperty<T>
  | { readonly property: FilterProperty<T>; readonly truncate?: DateTruncation; readonly as?: string }
  | { readonly reference: FilterProperty<T>; readonly property: string; readonly as?: string };

/** A metric of `Context.aggregate`: a function of a property (of the rows for `count` without one), answered as `as`. */
export interface AggregateMetricSpec<T> {
  /** The function. */
  readonly fn: AggregateFunction;
  /** The property measured; left out only by `count`, which then counts rows. */
  readonly property?: FilterProperty<T>;
  /** The name of the metric in each answered row. */
  readonly as: string;
}

/** A condition of `Context.aggregate` on a metric (by its name), or an OR of conditions. */
export type AggregateHavingSpec =
  | {
      readonly metric: string;
      readonly condition: "=" | "<>" | "<" | "<=" | ">" | ">=" | "IN" | "IS NULL" | "IS NOT NULL";
      readonly value?: FilterValue | readonly FilterValue[];
    }
  | { readonly or: readonly AggregateHavingSpec[] };

/**
 * A question of `Context.aggregate` over the rows of `T`, by property names: which rows (`where`, a `Filter`),
 * the groups, the metrics, conditions on metrics, the order (by a group's or a metric's name), the page. The
 * application's own code: unlike the HTTP body it may use any mapped property (`@Aggregatable` binds clients).
 */
export interface AggregateSpec<T> {
  /** The rows measured (a select's filter; its order and page are ignored); every row when left out. */
  readonly where?: Filter;
  /** The groups; none answers one row over every row of `where`. */
  readonly groupBy?: readonly AggregateGroupSpec<T>[];
  /** The metrics (at least one). */
  readonly metrics: readonly AggregateMetricSpec<T>[];
  /** Conditions on metrics, ANDed. */
  readonly having?: readonly AggregateHavingSpec[];
  /** The order, by group or metric name; every group follows ascending. */
  readonly orderBy?: readonly { readonly by: string; readonly direction?: "ASC" | "DESC" }[];
  /** Groups to answer at most. */
  readonly limit?: number;
  /** `AggregateResult.next` of the page before: this page starts after its last group. */
  readonly after?: readonly unknown[];
}

/** The `AggregateQuery` of a spec; a property, function or name that does not fit throws `TenonError`. */
export function aggregateQueryOf<T extends object>(entityClass: EntityClass<T>, spec: AggregateSpec<T>): AggregateQuery {
  const mapping = EntityMapping.of(entityClass);
  const columnOf = (owner: EntityMapping, property: string): ColumnMapping =>
    owner.column(property) ?? fail(FilterMessages.unknownProperty(owner.name, property));
  const names = new Set<string>();
  const named = (name: string): string => {
    if (name === "" || names.has(name)) fail(FilterMessages.aggregateName(name));
    names.add(name);
    return name;
  };
  const groups = (spec.groupBy ?? []).map((item): AggregateGroup => {
    if (typeof item === "string") return { name: named(item), column: groupColumn(columnOf(mapping, item)) };
    if ("reference" in item) {
      const through = columnOf(mapping, item.reference);
      const target = through.type.kind === "lazy" ? through.type.target?.() : undefined;
      if (target === undefined) fail(FilterMessages.notReference(mapping.name, item.reference));
      const column = groupColumn(columnOf(EntityMapping.of(target), item.property));
      return { name: named(item.as ?? `${item.reference}.${item.property}`), column, through };
    }
    const column = groupColumn(columnOf(mapping, item.property));
    if (item.truncate !== undefined && column.type.kind !== "date") fail(FilterMessages.truncateNotDate(item.property));
    return { name: named(item.as ?? item.property), column, truncate: item.truncate };
  });
  if (spec.metrics.length === 0) fail(FilterMessages.noMetric);
  const metrics = spec.metrics.map((item): AggregateMetric => {
    if (item.property === undefined) {
      if (item.fn !== "count") fail(FilterMessages.metricWithoutProperty(item.fn));
      return { name: named(item.as), fn: item.fn, column: undefined };
    }
    const column = columnOf(mapping, item.property);
    if (!metricFitsType(item.fn, column.type)) fail(FilterMessages.metricType(item.fn, item.property));
    return { name: named(item.as), fn: item.fn, column };
  });
  const metricIndex = (name: string): number => {
    const index = metrics.findIndex((metric) => metric.name === name);
    return index >= 0 ? index : fail(FilterMessages.unknownMetric(name));
  };
  const having = (item: AggregateHavingSpec): HavingCondition => {
    if ("or" in item) return { kind: "or", conditions: item.or.map(having) };
    const metric = metricIndex(item.metric);
    const value = (each: unknown): unknown => metricValue(metrics[metric], each);
    switch (item.condition) {
      case "IS NULL":
      case "IS NOT NULL":
        return { kind: "null", metric, negated: item.condition === "IS NOT NULL" };
      case "IN":
        if (!Array.isArray(item.value)) fail(FilterMessages.inValues(item.metric));
        return { kind: "in", metric, values: (item.value as readonly unknown[]).map(value) };
      default:
        return { kind: "compare", metric, operator: item.condition, value: value(item.value) };
    }
  };
  const orderBy = (spec.orderBy ?? []).map((item): AggregateOrderItem => {
    const group = groups.findIndex((each) => each.name === item.by);
    const direction = item.direction ?? "ASC";
    if (group >= 0) return { term: { kind: "group", index: group }, direction };
    return { term: { kind: "metric", index: metricIndex(item.by) }, direction };
  });
  if (spec.limit !== undefined && (!Number.isInteger(spec.limit) || spec.limit < 0)) fail(FilterMessages.page("limit", spec.limit));
  return {
    filter: spec.where ?? new Filter(),
    groups,
    metrics,
    having: (spec.having ?? []).map(having),
    orderBy,
    limit: spec.limit,
    after: spec.after,
  };
}

function groupColumn(column: ColumnMapping): ColumnMapping {
  if (!groupFitsType(column.type)) fail(FilterMessages.groupType(column.property));
  return column;
}

/** A value compared with a metric, as its type holds it: decimal text exactly, integers as numbers or bigints. */
function metricValue(metric: AggregateMetric, value: unknown): unknown {
  if (value instanceof Lazy) return value.id;
  if (value === null || value === undefined) fail(FilterMessages.nullValue(metric.name));
  const type = metricValueType(metric);
  if (type.kind === "decimal" || (type.kind === "column" && type.column.type.kind === "decimal")) {
    return (
      exactDecimalOf(value, 60, type.kind === "decimal" ? type.scale : (type.column.type.scale ?? 0)) ??
      fail(FilterMessages.metricValue(metric.name))
    );
  }
  return value;
}

function fail(message: string): never {
  throw new TenonError(message);
}
