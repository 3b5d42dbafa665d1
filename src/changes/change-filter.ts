import type { Condition } from "../filter/condition.js";
import { decodeColumnJson } from "../json/column-json.js";
import { jsonPropertyName } from "../json/json-visibility.js";
import type { ColumnMapping } from "../mapping/entity-mapping.js";
import { compareDecimalText } from "../values/decimal-text.js";
import type { StoredChange } from "./change-record.js";

const parsed = new WeakMap<StoredChange, Record<string, unknown> | null>();

/** The data of a change as JSON (parsed once, however many readers filter it). */
function dataOf(change: StoredChange): Record<string, unknown> | null {
  let data = parsed.get(change);
  if (data === undefined) {
    data = change.data === null ? null : (JSON.parse(change.data) as Record<string, unknown>);
    parsed.set(change, data);
  }
  return data;
}

/**
 * Whether a change's data (a delete's: the entity as it was deleted) meets every condition, as a select's
 * `where` would have found the row: a comparison with NULL is never true, decimals compare by value, dates by
 * time; text compares exactly (by code point, with case), and in LIKE `%` and `_` are the only wildcards.
 * A change without data meets no condition.
 */
export function changeMeets(change: StoredChange, conditions: readonly Condition[]): boolean {
  if (conditions.length === 0) return true;
  const data = dataOf(change);
  if (data === null) return false;
  for (const condition of conditions) if (!meets(condition, data)) return false;
  return true;
}

function columnValue(column: ColumnMapping, data: Record<string, unknown>): unknown {
  const json = data[jsonPropertyName(column)];
  if (json === undefined || json === null) return null;
  try {
    return decodeColumnJson(column, json);
  } catch {
    return null;
  }
}

function meets(condition: Condition, data: Record<string, unknown>): boolean {
  switch (condition.kind) {
    case "and":
      return condition.conditions.every((each) => meets(each, data));
    case "or":
      return condition.conditions.some((each) => meets(each, data));
    case "not":
      return !meets(condition.condition, data);
    case "null":
      return (columnValue(condition.column, data) === null) !== condition.negated;
    case "in": {
      const value = columnValue(condition.column, data);
      return value !== null && condition.values.some((each) => compare(condition.column, value, each) === 0);
    }
    case "between": {
      const value = columnValue(condition.column, data);
      return (
        value !== null && compare(condition.column, value, condition.low) >= 0 && compare(condition.column, value, condition.high) <= 0
      );
    }
    case "compare": {
      const value = columnValue(condition.column, data);
      if (value === null || condition.value === null) return false;
      switch (condition.operator) {
        case "=":
          return compare(condition.column, value, condition.value) === 0;
        case "<>":
          return compare(condition.column, value, condition.value) !== 0;
        case "<":
          return compare(condition.column, value, condition.value) < 0;
        case "<=":
          return compare(condition.column, value, condition.value) <= 0;
        case ">":
          return compare(condition.column, value, condition.value) > 0;
        case ">=":
          return compare(condition.column, value, condition.value) >= 0;
        case "LIKE":
          return likeRegExp(String(condition.value)).test(String(value));
        case "NOT LIKE":
          return !likeRegExp(String(condition.value)).test(String(value));
      }
      return false;
    }
    case "sql":
      return false;
  }
}

/** Compares two values of a column's type: negative, zero or positive. */
function compare(column: ColumnMapping, a: unknown, b: unknown): number {
  switch (column.type.kind) {
    case "decimal":
      return compareDecimalText(String(a), String(b));
    case "date":
      return (a as Date).getTime() - (b as Date).getTime();
    case "boolean":
      return Number(a) - Number(b);
    case "int64":
      return BigInt(a as bigint) < BigInt(b as bigint) ? -1 : BigInt(a as bigint) > BigInt(b as bigint) ? 1 : 0;
    case "string": {
      const x = String(a);
      const y = String(b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    default:
      return Number(a) - Number(b);
  }
}

const likeCache = new Map<string, RegExp>();

function likeRegExp(pattern: string): RegExp {
  let expression = likeCache.get(pattern);
  if (expression === undefined) {
    let source = "";
    for (const character of pattern) {
      if (character === "%") source += "[\\s\\S]*";
      else if (character === "_") source += "[\\s\\S]";
      else source += character.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
    }
    expression = new RegExp(`^${source}$`, "u");
    if (likeCache.size > 1000) likeCache.clear();
    likeCache.set(pattern, expression);
  }
  return expression;
}
