import { InvalidInputError } from "../../errors.js";
import { type AggregateQuery, type MetricValueType, metricValueType } from "../../filter/aggregate-query.js";
import type { AggregateRow } from "../../session/session-aggregates.js";
import { groupValueType } from "../../sql/aggregate-statements.js";
import { encoderFor } from "../../json/column-json.js";
import type { JsonValue } from "../../json/json-value.js";
import type { ColumnType } from "../../mapping/column-type.js";
import { exactDecimalOf } from "../../values/decimal-text.js";
import { CrudMessages } from "./crud-messages.js";
import type { FilterValueReader } from "./http-filter-body.js";

/**
 * A JSON value as a value of a metric's type: counts and int32 sums safe integers, int64 sums integers (numbers or
 * digit strings), doubles finite numbers, decimals numbers or decimal text with at most the metric's scale of
 * digits after the point, min and max values of the column's type; `InvalidInputError` (400) naming `name` otherwise.
 */
export function metricValueOf(type: MetricValueType, name: string, value: unknown, readValue: FilterValueReader): unknown {
  const wrong = (expected: string): never => fail(CrudMessages.valueNotConvertible(name, expected));
  switch (type.kind) {
    case "count":
    case "integer":
      return typeof value === "number" && Number.isSafeInteger(value) ? value : wrong("an integer");
    case "int64":
      if (typeof value === "number" && Number.isSafeInteger(value)) return BigInt(value);
      return typeof value === "string" && /^-?\d{1,30}$/.test(value) ? BigInt(value) : wrong("an integer (a number or a string of digits)");
    case "float":
      return typeof value === "number" && Number.isFinite(value) ? value : wrong("a number");
    case "decimal":
      if (typeof value !== "string" && typeof value !== "number")
        return wrong(`a decimal number with at most ${type.scale} digits after the point`);
      return exactDecimalOf(value, 60, type.scale) ?? wrong(`a decimal number with at most ${type.scale} digits after the point`);
    case "column":
      if (value === null || typeof value === "object") return wrong("a value of the column's type");
      try {
        return readValue(type.column, value);
      } catch (error) {
        if (error instanceof InvalidInputError) return wrong("a value of the column's type");
        throw error;
      }
  }
}

/** A value of an aggregate's answer as JSON: a group's as its column's JSON (a reference as its id), a metric's by its type. */
export function encodeAggregateValue(type: ColumnType<unknown> | MetricValueType, value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  if (isColumnType(type)) return type.kind === "lazy" ? (value as number) : encoderFor(type)(value);
  switch (type.kind) {
    case "count":
    case "integer":
    case "float":
      return value as number;
    case "int64":
    case "decimal":
      return String(value);
    case "column":
      return encoderFor(type.column.type)(value);
  }
}

/** Whether an order value's type is a column type (a group's) rather than a metric's value type. */
export function isColumnType(type: ColumnType<unknown> | MetricValueType): type is ColumnType<unknown> {
  return "nullable" in type;
}

function fail(message: string): never {
  throw new InvalidInputError(message);
}

/** One group of an aggregate's answer as JSON: each group's value as its column's JSON, each metric's by its value type. */
export function encodeAggregateRow(query: AggregateQuery, row: AggregateRow): Record<string, JsonValue> {
  const json: Record<string, JsonValue> = {};
  for (const group of query.groups) json[group.name] = encodeAggregateValue(groupValueType(group), row[group.name]);
  for (const metric of query.metrics) json[metric.name] = encodeAggregateValue(metricValueType(metric), row[metric.name]);
  return json;
}
