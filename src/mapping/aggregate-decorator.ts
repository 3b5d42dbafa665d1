import { MappingError } from "../errors.js";
import type { ColumnMapping } from "./column-mapping.js";
import type { ColumnType } from "./column-type.js";
import { registerMappingCheck } from "./entity-mapping.js";
import { MappingMessages } from "./mapping-messages.js";
import { annotateMember } from "./metadata-store.js";

/**
 * The functions of an aggregate: `count` (rows, or the non-null values of a column), `countDistinct` (the
 * distinct non-null values of a column), `sum`, `avg`, `min` and `max`.
 */
export type AggregateFunction = "count" | "countDistinct" | "sum" | "avg" | "min" | "max";

/** The start of the period a date is truncated to, in UTC: its day, its week (from Monday), its month or its year. */
export type DateTruncation = "day" | "week" | "month" | "year";

/** Every date truncation, in a fixed order. */
export const dateTruncations: readonly DateTruncation[] = ["day", "week", "month", "year"];

/** Every aggregate function, in a fixed order. */
export const aggregateFunctions: readonly AggregateFunction[] = ["count", "countDistinct", "sum", "avg", "min", "max"];

/** What `@Aggregatable` declares of a column; what it leaves out takes the defaults (docs/crud.md "Aggregates"). */
export interface AggregatableOptions {
  /** Whether an aggregate may group by the column. */
  readonly groupBy?: boolean;
  /** The functions an aggregate may apply to the column. */
  readonly metrics?: readonly AggregateFunction[];
}

/** The annotation key of `@Aggregatable`. @internal */
export const aggregatableKey = Symbol("tenon.Aggregatable");

/**
 * Declares how the HTTP aggregate route (`POST {base}/aggregate`) may use the column: whether it may group by
 * it and which functions it may apply to it. Without the decorator a filterable column may be grouped by and
 * counted, a numeric one (not the key or the version) summed and averaged, a numeric or date one measured with
 * min and max; a `@NotFilterable` column may be used only as far as this decorator says. `@Aggregatable({
 * groupBy: false, metrics: [] })` keeps a column out of aggregates. A function the column's type cannot take
 * (`sum` of text, anything of a blob) refuses the entity with `MappingError` when it is mapped.
 */
export function Aggregatable(options: AggregatableOptions = {}) {
  const declared: AggregatableOptions = Object.freeze({
    groupBy: options.groupBy,
    metrics: options.metrics === undefined ? undefined : Object.freeze([...options.metrics]),
  });
  return <This, V>(_value: undefined, context: ClassFieldDecoratorContext<This, V>): void =>
    annotateMember(context, aggregatableKey, declared);
}

/** What `@Aggregatable` declared on the column, or undefined without it. */
export function declaredAggregatable(column: ColumnMapping): AggregatableOptions | undefined {
  return column.annotations.get(aggregatableKey)?.[0] as AggregatableOptions | undefined;
}

/** Whether an aggregate function can apply to a column of this type at all (whatever the column declares). */
export function metricFitsType(fn: AggregateFunction, type: ColumnType<unknown>): boolean {
  switch (fn) {
    case "count":
    case "countDistinct":
      return type.kind !== "blob";
    case "sum":
    case "avg":
      return isNumericKind(type);
    case "min":
    case "max":
      return type.kind !== "blob" && type.kind !== "boolean" && type.kind !== "lazy";
  }
}

/** Whether a column of this type can be a group of an aggregate at all. */
export function groupFitsType(type: ColumnType<unknown>): boolean {
  return type.kind !== "blob";
}

/** Whether the type is a number that sums: int32, int64, float or decimal. */
export function isNumericKind(type: ColumnType<unknown>): boolean {
  return type.kind === "int32" || type.kind === "int64" || type.kind === "float" || type.kind === "decimal";
}

registerMappingCheck((mapping) => {
  for (const column of mapping.columns) {
    const records = column.annotations.get(aggregatableKey) ?? [];
    const fail = (problem: string): never => {
      throw new MappingError(MappingMessages.invalidEntity(mapping.name, problem));
    };
    if (records.length > 1) fail(MappingMessages.memberAppliedTwice(column.property, "Aggregatable"));
    const declared = records[0] as AggregatableOptions | undefined;
    if (declared === undefined) continue;
    if (declared.groupBy === true && !groupFitsType(column.type))
      fail(MappingMessages.aggregateGroupType(column.property, column.type.kind));
    for (const fn of declared.metrics ?? []) {
      if (!aggregateFunctions.includes(fn)) fail(MappingMessages.aggregateUnknownFunction(column.property, String(fn)));
      if (!metricFitsType(fn, column.type)) fail(MappingMessages.aggregateMetricType(column.property, fn, column.type.kind));
    }
  }
});
