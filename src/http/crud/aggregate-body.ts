import { InvalidInputError } from "../../errors.js";
import {
  type AggregateFunction,
  type AggregateGroup,
  type AggregateMetric,
  type AggregateOrderItem,
  type AggregateQuery,
  aggregateOrder,
  type DateTruncation,
  dateTruncations,
  type HavingCondition,
  metricValueType,
} from "../../filter/aggregate-query.js";
import { Filter } from "../../filter/filter.js";
import { aggregateFunctions, metricFitsType } from "../../mapping/aggregate-decorator.js";
import type { ColumnType } from "../../mapping/column-type.js";
import type { ColumnMapping, EntityMapping } from "../../mapping/entity-mapping.js";
import { textFaultOf } from "../../values/text.js";
import { type AggregateColumns, aggregateColumnsOf } from "./aggregate-columns.js";
import { decodeAggregateCursor } from "./aggregate-cursor.js";
import { metricValueOf } from "./aggregate-values.js";
import { CrudMessages } from "./crud-messages.js";
import { filterColumnsOf } from "./filter-columns.js";
import { effectiveLimit, type FilterColumns, type FilterValueReader, maxInValues, maxOrDepth, parseWhere } from "./http-filter-body.js";
import type { HttpFilterParameters } from "./http-filter-parameters.js";

/** Most groups (`groupBy` items) an aggregate body may list. */
export const maxGroupByColumns = 8;
/** Most metrics an aggregate body may list. */
export const maxMetrics = 16;
/** Longest name (`as`) of a group or metric, in characters. */
export const maxAggregateNameLength = 100;

const topKeys = new Set(["where", "groupby", "metrics", "having", "orderby", "limit", "after"]);
const groupKeys = new Set(["column", "truncate", "as"]);
const metricKeys = new Set(["fn", "column", "as"]);
const havingKeys = new Set(["columnname", "condition", "value"]);
const orderByKeys = new Set(["columnname", "direction"]);
const havingOperators = new Map<string, "=" | "<>" | "<" | "<=" | ">" | ">=" | "IN" | "IS NULL" | "IS NOT NULL">(
  ["=", "<>", "<", "<=", ">", ">=", "IN", "IS NULL", "IS NOT NULL"].map((op) => [op, op as "="]),
);
const functionsByName = new Map(aggregateFunctions.map((fn) => [fn.toLowerCase(), fn]));

function fail(message: string): never {
  throw new InvalidInputError(message);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The members of a body object by lower-case name; an unknown one answers `unknown(name)`. */
function membersOf(item: Record<string, unknown>, known: ReadonlySet<string>, unknown: (name: string) => string): Map<string, unknown> {
  const members = new Map<string, unknown>();
  for (const [key, value] of Object.entries(item)) {
    const lower = key.toLowerCase();
    if (!known.has(lower)) fail(unknown(key));
    members.set(lower, value);
  }
  return members;
}

/**
 * Turns an aggregate body (docs/crud.md "Aggregates") into an `AggregateQuery` of the entity: `where` as a
 * select's (the same parser and rules), `groupBy` of aggregatable columns (`company.name` through a reference,
 * `{"column", "truncate", "as"}` for a date's period), `metrics` of functions the columns allow, `having` on
 * metrics, `orderBy` on groups or metrics, `limit` and `after` (a cursor of the previous page). Nothing of the
 * body becomes SQL text; anything that does not fit answers `InvalidInputError` (400) naming it. `options` says
 * what the engine sums exactly and which columns the caller may use.
 */
export function parseAggregateBody(
  body: unknown,
  mapping: EntityMapping,
  readValue: FilterValueReader,
  parameters: HttpFilterParameters,
  options: AggregateBodyOptions,
): AggregateQuery {
  const sumsExactly = options.sumsExactly;
  if (!isPlainObject(body)) fail(CrudMessages.aggregateNotObject);
  const members = membersOf(body, topKeys, CrudMessages.unknownAggregateProperty);
  const filter = new Filter();
  filter.includeDeleted = parameters.includeDeleted;
  const filterColumns = options.filterColumns ?? filterColumnsOf(mapping);
  for (const condition of parseWhere(members.get("where"), filterColumns, readValue, parameters)) filter.add(condition);

  const names = new Set<string>();
  const named = (name: string): string => {
    if (names.has(name.toLowerCase())) fail(CrudMessages.aggregateNameTwice(name));
    names.add(name.toLowerCase());
    return name;
  };
  const columns = readableColumns(aggregateColumnsOf(mapping), options.readable);
  const groups = listOf(members.get("groupby"), "groupBy", maxGroupByColumns).map((item) => parseGroup(item, columns, named));
  const metricItems = listOf(members.get("metrics"), "metrics", maxMetrics);
  if (metricItems.length === 0) fail(CrudMessages.metricsMissing);
  const metrics = metricItems.map((item) => parseMetric(item, columns, named, sumsExactly));

  const metricByName = new Map(metrics.map((metric, index) => [metric.name.toLowerCase(), index]));
  const counter = { leaves: 0, max: parameters.effectiveMaxWhereConditions };
  const havingItems = members.get("having");
  if (havingItems !== undefined && havingItems !== null && !Array.isArray(havingItems)) fail(CrudMessages.listNotArray("having"));
  const having = ((havingItems ?? []) as unknown[]).map((item) => parseHaving(item, 1, metrics, metricByName, readValue, counter));

  const orderItems = listOf(members.get("orderby"), "orderBy", parameters.effectiveMaxOrderByColumns);
  const orderBy = orderItems.map((item) => parseOrderItem(item, groups, metricByName));

  const limit = members.get("limit");
  if (limit !== undefined && limit !== null && (typeof limit !== "number" || !Number.isSafeInteger(limit))) fail(CrudMessages.badLimit);
  const query: AggregateQuery = {
    filter,
    groups,
    metrics,
    having,
    orderBy,
    limit: effectiveLimit(limit as number | undefined | null, parameters),
    after: undefined,
  };
  const cursor = members.get("after");
  if (cursor === undefined || cursor === null) return query;
  return { ...query, after: decodeAggregateCursor(cursor, query, aggregateOrder(query), readValue) };
}

/** What the engine and the caller decide about an aggregate body. */
export interface AggregateBodyOptions {
  /** Whether the engine sums (and averages) a column of this type exactly (`Dialect.sumsExactly`); others answer 400. */
  readonly sumsExactly: (type: ColumnType<unknown>) => boolean;
  /** The columns `where` may name (default: `filterColumnsOf` the entity); a caller's narrower set where one applies. */
  readonly filterColumns?: FilterColumns;
  /** Whether the caller may read a column: one it may not answers like a column that is not aggregatable. */
  readonly readable?: (column: ColumnMapping) => boolean;
}

/** The aggregate columns without those the caller may not read. */
function readableColumns(columns: AggregateColumns, readable: ((column: ColumnMapping) => boolean) | undefined): AggregateColumns {
  if (readable === undefined) return columns;
  return {
    uses: columns.uses,
    groupNames: columns.groupNames,
    find: (name) => {
      const use = columns.find(name);
      return use !== undefined && readable(use.column) ? use : undefined;
    },
    group: (name) => {
      const group = columns.group(name);
      return group !== undefined && readable(group.column) && (group.through === undefined || readable(group.through)) ? group : undefined;
    },
  };
}

/** A list property of the body (absent or null: empty), with at most `max` items (undefined: any number). */
function listOf(value: unknown, name: string, max: number | undefined): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) fail(CrudMessages.listNotArray(name));
  if (max !== undefined && value.length > max) fail(CrudMessages.listTooLong(name, max));
  return value;
}

/** A name given with `as`: a non-empty string of at most `maxAggregateNameLength` characters, valid text. */
function nameOf(value: unknown): string {
  if (typeof value !== "string" || value.trim() === "" || value.length > maxAggregateNameLength || textFaultOf(value) !== undefined) {
    fail(CrudMessages.badAggregateName(maxAggregateNameLength));
  }
  return value;
}

function parseGroup(item: unknown, columns: AggregateColumns, named: (name: string) => string): AggregateGroup {
  if (typeof item === "string") {
    const group = columns.group(item) ?? fail(CrudMessages.columnNotGroupable(item));
    return { name: named(group.wireName), column: group.column, through: group.through };
  }
  if (!isPlainObject(item)) fail(CrudMessages.groupNotValid);
  const members = membersOf(item, groupKeys, CrudMessages.unknownGroupProperty);
  const name = members.get("column");
  if (typeof name !== "string") fail(CrudMessages.groupNotValid);
  const group = columns.group(name) ?? fail(CrudMessages.columnNotGroupable(name));
  const truncateText = members.get("truncate");
  let truncate: DateTruncation | undefined;
  if (truncateText !== undefined && truncateText !== null) {
    if (typeof truncateText !== "string") fail(CrudMessages.badTruncate);
    truncate = dateTruncations.find((unit) => unit === truncateText.trim().toLowerCase()) ?? fail(CrudMessages.badTruncate);
    if (group.column.type.kind !== "date") fail(CrudMessages.truncateNotDate(name));
  }
  const as = members.get("as");
  return {
    name: named(as === undefined || as === null ? group.wireName : nameOf(as)),
    column: group.column,
    through: group.through,
    truncate,
  };
}

function parseMetric(
  item: unknown,
  columns: AggregateColumns,
  named: (name: string) => string,
  sumsExactly: (type: ColumnType<unknown>) => boolean,
): AggregateMetric {
  if (!isPlainObject(item)) fail(CrudMessages.metricNotValid);
  const members = membersOf(item, metricKeys, CrudMessages.unknownMetricProperty);
  const fnText = members.get("fn");
  if (typeof fnText !== "string") fail(CrudMessages.metricNotValid);
  const fn: AggregateFunction = functionsByName.get(fnText.trim().toLowerCase()) ?? fail(CrudMessages.unknownFunction(fnText));
  if (!members.has("as")) fail(CrudMessages.metricWithoutName(fn));
  const name = named(nameOf(members.get("as")));
  const columnName = members.get("column");
  if (columnName === undefined || columnName === null) {
    if (fn !== "count") fail(CrudMessages.metricWithoutColumn(fn));
    return { name, fn, column: undefined };
  }
  if (typeof columnName !== "string") fail(CrudMessages.metricNotValid);
  const use = columns.find(columnName) ?? fail(CrudMessages.columnNotAggregatable(columnName));
  if (!metricFitsType(fn, use.column.type)) fail(CrudMessages.metricWrongType(fn, columnName, use.column.type.kind));
  if (!use.metrics.has(fn)) fail(CrudMessages.metricNotAllowed(fn, columnName));
  if ((fn === "sum" || fn === "avg") && !sumsExactly(use.column.type)) fail(CrudMessages.sumNotExact(fn, columnName));
  return { name, fn, column: use.column };
}

function parseHaving(
  item: unknown,
  depth: number,
  metrics: readonly AggregateMetric[],
  metricByName: ReadonlyMap<string, number>,
  readValue: FilterValueReader,
  counter: { leaves: number; max: number | undefined },
): HavingCondition {
  if (!isPlainObject(item)) fail(CrudMessages.havingNotObject);
  const entries = Object.entries(item);
  const orEntry = entries.find(([key]) => key.toLowerCase() === "or");
  if (orEntry !== undefined) {
    if (entries.length !== 1) fail(CrudMessages.havingNotObject);
    const group = orEntry[1];
    if (!Array.isArray(group) || group.length === 0) fail(CrudMessages.orNotArray);
    if (depth > maxOrDepth) fail(CrudMessages.orTooDeep(maxOrDepth));
    return { kind: "or", conditions: group.map((child) => parseHaving(child, depth + 1, metrics, metricByName, readValue, counter)) };
  }
  const members = membersOf(item, havingKeys, CrudMessages.unknownHavingProperty);
  const name = members.get("columnname");
  if (typeof name !== "string") fail(CrudMessages.havingNotObject);
  counter.leaves++;
  if (counter.max !== undefined && counter.leaves > counter.max) fail(CrudMessages.tooManyConditions(counter.max));
  const metric = metricByName.get(name.toLowerCase()) ?? fail(CrudMessages.havingNotMetric(name));
  const conditionText = members.get("condition");
  if (typeof conditionText !== "string") fail(CrudMessages.conditionMissing(name));
  const operator =
    havingOperators.get(conditionText.trim().replace(/\s+/g, " ").toUpperCase()) ??
    fail(CrudMessages.unknownHavingCondition(conditionText));
  const hasValue = members.has("value");
  const value = members.get("value");
  if (operator === "IS NULL" || operator === "IS NOT NULL") {
    if (hasValue && value !== null) fail(CrudMessages.valueNotAllowed(name, operator));
    return { kind: "null", metric, negated: operator === "IS NOT NULL" };
  }
  if (!hasValue || value === undefined) fail(CrudMessages.valueMissing(name, operator));
  const type = metricValueType(metrics[metric]);
  if (operator === "IN") {
    if (!Array.isArray(value) || value.length === 0 || value.length > maxInValues) fail(CrudMessages.inNotArray(name, maxInValues));
    return { kind: "in", metric, values: value.map((each) => metricValueOf(type, name, each, readValue)) };
  }
  return { kind: "compare", metric, operator, value: metricValueOf(type, name, value, readValue) };
}

function parseOrderItem(item: unknown, groups: readonly AggregateGroup[], metricByName: ReadonlyMap<string, number>): AggregateOrderItem {
  if (!isPlainObject(item)) fail(CrudMessages.orderByNotObject);
  const members = membersOf(item, orderByKeys, CrudMessages.unknownOrderByProperty);
  const name = members.get("columnname");
  if (typeof name !== "string") fail(CrudMessages.columnNameMissing);
  const direction = members.get("direction");
  if (direction !== undefined && direction !== null && typeof direction !== "string") fail(CrudMessages.directionNotText);
  const normalized = typeof direction === "string" ? direction.trim().toUpperCase() : "";
  if (normalized !== "" && normalized !== "ASC" && normalized !== "DESC") fail(CrudMessages.badDirection(direction as string));
  const lower = name.toLowerCase();
  const group = groups.findIndex((each) => each.name.toLowerCase() === lower);
  const metric = metricByName.get(lower);
  const term =
    group >= 0
      ? { kind: "group" as const, index: group }
      : metric !== undefined
        ? { kind: "metric" as const, index: metric }
        : fail(CrudMessages.orderByNotAggregate(name));
  return { term, direction: normalized === "DESC" ? "DESC" : "ASC" };
}
