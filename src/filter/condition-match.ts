import type { ColumnMapping } from "../mapping/entity-mapping.js";
import { compareDecimalText } from "../values/decimal-text.js";
import type { Condition } from "./condition.js";

/**
 * Whether a condition holds for one row whose values `values` answers (entity values: a reference as its key,
 * `null` for SQL NULL), as the database would have found the row: a comparison with NULL never holds, decimals
 * compare by value, dates by time, text exactly (by code point, with case), and in LIKE `%` and `_` are the only
 * wildcards. An SQL condition of the application (`addWhere`) cannot be decided here and never holds.
 */
export function conditionHolds(condition: Condition, values: (column: ColumnMapping) => unknown): boolean {
  switch (condition.kind) {
    case "and":
      return condition.conditions.every((each) => conditionHolds(each, values));
    case "or":
      return condition.conditions.some((each) => conditionHolds(each, values));
    case "not":
      return !conditionHolds(condition.condition, values);
    case "null":
      return isNull(values(condition.column)) !== condition.negated;
    case "in": {
      const value = values(condition.column);
      return !isNull(value) && condition.values.some((each) => !isNull(each) && compareValues(condition.column, value, each) === 0);
    }
    case "between": {
      const value = values(condition.column);
      if (isNull(value) || isNull(condition.low) || isNull(condition.high)) return false;
      return compareValues(condition.column, value, condition.low) >= 0 && compareValues(condition.column, value, condition.high) <= 0;
    }
    case "compare": {
      const value = values(condition.column);
      if (isNull(value) || isNull(condition.value)) return false;
      switch (condition.operator) {
        case "LIKE":
          return likeRegExp(String(condition.value)).test(String(value));
        case "NOT LIKE":
          return !likeRegExp(String(condition.value)).test(String(value));
      }
      const order = compareValues(condition.column, value, condition.value);
      switch (condition.operator) {
        case "=":
          return order === 0;
        case "<>":
          return order !== 0 && !Number.isNaN(order);
        case "<":
          return order < 0;
        case "<=":
          return order <= 0;
        case ">":
          return order > 0;
        case ">=":
          return order >= 0;
      }
      return false;
    }
    case "sql":
      return false;
  }
}

function isNull(value: unknown): boolean {
  return value === null || value === undefined;
}

/**
 * Compares two non-null values of a column's type: negative, zero or positive; NaN for values that do not compare
 * (bytes, or a value of another type), which no comparison then meets.
 */
export function compareValues(column: ColumnMapping, a: unknown, b: unknown): number {
  switch (column.type.kind) {
    case "decimal":
      return compareDecimalText(String(a), String(b));
    case "date": {
      const x = a instanceof Date ? a.getTime() : Number.NaN;
      const y = b instanceof Date ? b.getTime() : Number.NaN;
      return x - y;
    }
    case "boolean":
      return typeof a === "boolean" && typeof b === "boolean" ? Number(a) - Number(b) : Number.NaN;
    case "int64": {
      if (typeof a !== "bigint" && typeof a !== "number") return Number.NaN;
      if (typeof b !== "bigint" && typeof b !== "number") return Number.NaN;
      const x = BigInt(a);
      const y = BigInt(b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case "string": {
      if (typeof a !== "string" || typeof b !== "string") return Number.NaN;
      return a < b ? -1 : a > b ? 1 : 0;
    }
    case "blob":
      return Number.NaN;
    default:
      return typeof a === "number" && typeof b === "number" ? a - b : Number.NaN;
  }
}

const likeCache = new Map<string, RegExp>();

/** The expression of a LIKE pattern: `%` any run of characters, `_` one character, everything else itself. */
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
