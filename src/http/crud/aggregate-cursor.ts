import { InvalidInputError } from "../../errors.js";
import { type AggregateOrderItem, type AggregateQuery, type MetricValueType, metricValueType } from "../../filter/aggregate-query.js";
import type { JsonValue } from "../../json/json-value.js";
import type { ColumnType } from "../../mapping/column-type.js";
import { groupValueType } from "../../sql/aggregate-statements.js";
import { isDecimalText } from "../../values/decimal-text.js";
import { encodeAggregateValue, isColumnType, metricValueOf } from "./aggregate-values.js";
import { CrudMessages } from "./crud-messages.js";
import type { FilterValueReader } from "./http-filter-body.js";
import { cursorArrayOf } from "./keyset-cursor.js";

/**
 * The cursor of an aggregate's next page (`nextCursor`, sent back as `after`): the order it was made for and the
 * order values of the page's last group, as base64url JSON, like a select's keyset cursor. No secret and no
 * server state; checked when read: the order must be the body's, every value converts to its group's or
 * metric's type and is bound as a parameter, so a forged cursor is a 400 or a page after its values, never SQL.
 */
export function encodeAggregateCursor(query: AggregateQuery, order: readonly AggregateOrderItem[], values: readonly unknown[]): string {
  const encoded: JsonValue[] = [
    orderSignature(query, order),
    ...order.map((item, index) => jsonOf(valueTypeOf(query, item), values[index])),
  ];
  return Buffer.from(JSON.stringify(encoded), "utf8").toString("base64url");
}

/** The order values an aggregate cursor carries, converted to their types; `InvalidInputError` (400) otherwise. */
export function decodeAggregateCursor(
  cursor: unknown,
  query: AggregateQuery,
  order: readonly AggregateOrderItem[],
  readValue: FilterValueReader,
): unknown[] {
  const parsed = cursorArrayOf(cursor, CrudMessages.badAggregateCursor);
  if (parsed[0] !== orderSignature(query, order) || parsed.length !== order.length + 1) {
    throw new InvalidInputError(CrudMessages.aggregateCursorOtherOrder);
  }
  return order.map((item, index) => {
    const value = parsed[index + 1];
    if (value === null) return null;
    const type = valueTypeOf(query, item);
    const name = item.term.kind === "group" ? query.groups[item.term.index].name : query.metrics[item.term.index].name;
    try {
      if (type === "average") {
        if ((typeof value === "number" && Number.isFinite(value)) || (typeof value === "string" && isDecimalText(value))) return value;
        throw new InvalidInputError(CrudMessages.cursorValue(name));
      }
      if (!isColumnType(type)) return metricValueOf(type, name, value, readValue);
      if (typeof value === "object") throw new InvalidInputError(CrudMessages.cursorValue(name));
      return readValue(query.groups[item.term.index].column, value);
    } catch (error) {
      if (error instanceof InvalidInputError) throw new InvalidInputError(CrudMessages.cursorValue(name));
      throw error;
    }
  });
}

/** What an order item's value is: a group's column type, a metric's value type, or an average's engine value. */
function valueTypeOf(query: AggregateQuery, item: AggregateOrderItem): ColumnType<unknown> | MetricValueType | "average" {
  if (item.term.kind === "group") return groupValueType(query.groups[item.term.index]);
  const metric = query.metrics[item.term.index];
  return metric.fn === "avg" ? "average" : metricValueType(metric);
}

/** An order value as JSON: as the answer writes it (int64 as digit text, dates ISO-8601), an average as the engine gave it. */
function jsonOf(type: ColumnType<unknown> | MetricValueType | "average", value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  if (type === "average") return typeof value === "number" ? value : String(value);
  return encodeAggregateValue(type, value);
}

/** The order a cursor was made for: each item's name, function (of a metric) and direction. */
function orderSignature(query: AggregateQuery, order: readonly AggregateOrderItem[]): string {
  return order
    .map((item) => {
      const direction = item.direction === "ASC" ? "+" : "-";
      if (item.term.kind === "group") return `${query.groups[item.term.index].name}${direction}`;
      const metric = query.metrics[item.term.index];
      return `${metric.name}:${metric.fn}${direction}`;
    })
    .join(",");
}
