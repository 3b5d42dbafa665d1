import { InvalidInputError } from "../../errors.js";
import type { ComparisonOperator, Condition, OrderByItem } from "../../filter/condition.js";
import { Filter } from "../../filter/filter.js";
import { keysetCondition, keysetOrder } from "../../filter/keyset.js";
import { decodeCursor } from "./keyset-cursor.js";
import type { ColumnMapping } from "../../mapping/entity-mapping.js";
import { fitsSize } from "../../values/text.js";
import { CrudMessages } from "./crud-messages.js";
import type { HttpFilterParameters } from "./http-filter-parameters.js";
import type { CountMode } from "../../session/session-counts.js";

/** Deepest nesting of `or` groups a filter body may use. */
export const maxOrDepth = 4;
/** Most values an `IN` condition may list. */
export const maxInValues = 100;
/**
 * Longest LIKE pattern, in characters (code points): the engines' pattern matchers are not built for long
 * patterns (SQLite refuses one of 50,000 bytes as too complex), and no search needs one this long.
 */
export const maxLikePatternLength = 1000;

/** Reads column values of a filter body: converts a JSON value to the column's type, or throws `InvalidInputError`. */
export type FilterValueReader = (column: ColumnMapping, value: unknown) => unknown;

/** How a filter body names and may use the columns of one entity. */
export interface FilterColumns {
  /** The column a body name designates (JSON name or database name, any case), if it may be filtered. */
  find(name: string): ColumnMapping | undefined;
  /** The primary key, the last order column of keyset pages; without it a body's `after` answers 400. */
  readonly primaryKey?: ColumnMapping;
}

/** A select body read: the filter, and what keyset paging needs. */
export interface SelectBody {
  /** The filter: conditions (the `after` condition included), order, page. */
  readonly filter: Filter;
  /**
   * The full order of the page (the primary key last) when the body has no `start`, so that the answer can
   * carry `nextCursor`; undefined with `start` (an offset page).
   */
  readonly keysetOrder: readonly OrderByItem[] | undefined;
  /** The condition `after` added to the filter, if any (the count of a keyset page leaves it out). */
  readonly after: Condition | undefined;
  /** Whether the body sent a cursor (`after`), even one after which no row can follow. */
  readonly hasCursor: boolean;
  /**
   * Whether the body's `count` asks for a count: true (`true`, `"exact"`, `"estimated"`, `{"atMost": n}`) or
   * false (`false`, `"none"`), or undefined when absent.
   */
  readonly count: boolean | undefined;
  /** How the body's `count` wants rows counted, when it asks for a count at all (`count` true). */
  readonly countMode: CountMode | undefined;
}

const conditionKeys = new Set(["columnname", "condition", "value"]);
const orderByKeys = new Set(["columnname", "direction"]);
const topKeys = new Set(["where", "orderby", "start", "limit", "after", "count"]);

const operators = new Map<string, ComparisonOperator | "IN" | "IS NULL" | "IS NOT NULL">([
  ["=", "="],
  ["<>", "<>"],
  ["<", "<"],
  ["<=", "<="],
  [">", ">"],
  [">=", ">="],
  ["LIKE", "LIKE"],
  ["NOT LIKE", "NOT LIKE"],
  ["IN", "IN"],
  ["IS NULL", "IS NULL"],
  ["IS NOT NULL", "IS NOT NULL"],
]);

function fail(message: string): never {
  throw new InvalidInputError(message);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Turns a filter body (docs/crud.md) into a `Filter`. Nothing of the body becomes SQL
 * text: columns are looked up in the mapping, operators in a closed list, and values are converted to
 * the column's type and bound as parameters. Any deviation answers `InvalidInputError` (400).
 */
export function parseFilterBody(
  body: unknown,
  columns: FilterColumns,
  readValue: FilterValueReader,
  parameters: HttpFilterParameters,
): Filter {
  return parseSelectBody(body, columns, readValue, parameters).filter;
}

/**
 * Reads a select body as `parseFilterBody` does, with its keyset paging: `after` (a cursor a previous page
 * answered as `nextCursor`; not with `start`) becomes a condition on the order columns, the primary key last,
 * its values checked against their columns' types and bound; `count` says whether a page answers the count.
 */
export function parseSelectBody(
  body: unknown,
  columns: FilterColumns,
  readValue: FilterValueReader,
  parameters: HttpFilterParameters,
): SelectBody {
  if (!isPlainObject(body)) fail(CrudMessages.filterNotObject);
  const keys = new Map(Object.keys(body).map((key) => [key.toLowerCase(), key]));
  for (const [lower, key] of keys) if (!topKeys.has(lower)) fail(CrudMessages.unknownFilterProperty(key));
  const filter = new Filter();
  filter.includeDeleted = parameters.includeDeleted;
  const where = keys.has("where") ? body[keys.get("where") as string] : undefined;
  const orderBy = keys.has("orderby") ? body[keys.get("orderby") as string] : undefined;
  const start = keys.has("start") ? body[keys.get("start") as string] : undefined;
  const limit = keys.has("limit") ? body[keys.get("limit") as string] : undefined;
  const cursor = keys.has("after") ? body[keys.get("after") as string] : undefined;
  const count = keys.has("count") ? body[keys.get("count") as string] : undefined;

  for (const condition of parseWhere(where, columns, readValue, parameters)) filter.add(condition);
  if (orderBy !== undefined && orderBy !== null) {
    if (!Array.isArray(orderBy)) fail(CrudMessages.orderByNotArray);
    const max = parameters.effectiveMaxOrderByColumns;
    if (max !== undefined && orderBy.length > max) fail(CrudMessages.tooManyOrderBy(max));
    for (const item of orderBy) {
      if (!isPlainObject(item)) fail(CrudMessages.orderByNotObject);
      let name: unknown;
      let direction: unknown;
      for (const [key, value] of Object.entries(item)) {
        const lower = key.toLowerCase();
        if (!orderByKeys.has(lower)) fail(CrudMessages.unknownOrderByProperty(key));
        if (lower === "columnname") name = value;
        else direction = value;
      }
      if (typeof name !== "string") fail(CrudMessages.columnNameMissing);
      const column = columns.find(name) ?? fail(CrudMessages.columnNotFilterable(name));
      // Never String(direction): a nested array overflows the stack there, an object whose own toString
      // is not a function throws (both were 500s), and the message would echo the whole value.
      if (direction !== undefined && direction !== null && typeof direction !== "string") fail(CrudMessages.directionNotText);
      const normalized = typeof direction === "string" ? direction.trim().toUpperCase() : "";
      if (normalized !== "" && normalized !== "ASC" && normalized !== "DESC") fail(CrudMessages.badDirection(direction as string));
      filter.orderBy.push({ column, direction: normalized === "DESC" ? "DESC" : "ASC" });
    }
  }
  if (start !== undefined && start !== null) {
    if (typeof start !== "number" || !Number.isSafeInteger(start) || start < 0) fail(CrudMessages.badStart);
    filter.offset = start;
  }
  if (limit !== undefined && limit !== null && (typeof limit !== "number" || !Number.isSafeInteger(limit))) fail(CrudMessages.badLimit);
  filter.limit = effectiveLimit(limit as number | undefined | null, parameters);
  const countMode = count === undefined || count === null ? undefined : parseCount(count);
  const hasStart = start !== undefined && start !== null;
  const hasCursor = cursor !== undefined && cursor !== null;
  if (hasCursor && hasStart) fail(CrudMessages.afterWithStart);
  const primaryKey = columns.primaryKey;
  const order = hasStart || primaryKey === undefined ? undefined : keysetOrder(primaryKey, filter.orderBy);
  let after: Condition | undefined;
  if (hasCursor) {
    if (order === undefined) fail(CrudMessages.badCursor);
    // No row can follow a cursor whose condition is empty: the page is empty.
    after = keysetCondition(order, decodeCursor(cursor, order, readValue)) ?? { kind: "or", conditions: [] };
    filter.add(after);
  }
  return {
    filter,
    keysetOrder: order,
    after,
    hasCursor,
    count: countMode === undefined ? undefined : countMode !== "none",
    countMode: countMode === "none" ? undefined : countMode,
  };
}

/**
 * The conditions of a body's `where` (absent or null: none): the items ANDed, `{"or": [...]}` groups, each
 * column looked up in `columns`, each value converted to its column's type; `InvalidInputError` (400) otherwise.
 */
export function parseWhere(
  where: unknown,
  columns: FilterColumns,
  readValue: FilterValueReader,
  parameters: HttpFilterParameters,
): Condition[] {
  if (where === undefined || where === null) return [];
  if (!Array.isArray(where)) fail(CrudMessages.whereNotArray);
  const counter = { leaves: 0, max: parameters.effectiveMaxWhereConditions };
  return where.map((item) => parseItem(item, 1, columns, readValue, counter));
}

/** A body's `count`: true or `"exact"`, false or `"none"`, `"estimated"`, or `{"atMost": n}` (n a positive integer). */
function parseCount(count: unknown): CountMode | "none" {
  if (count === true) return "exact";
  if (count === false) return "none";
  if (typeof count === "string") {
    const mode = count.trim().toLowerCase();
    if (mode === "exact" || mode === "none" || mode === "estimated") return mode;
  } else if (isPlainObject(count)) {
    const entries = Object.entries(count);
    if (entries.length === 1 && entries[0][0].toLowerCase() === "atmost") {
      const max = entries[0][1];
      if (typeof max === "number" && Number.isSafeInteger(max) && max > 0) return { atMost: max };
    }
  }
  return fail(CrudMessages.badCount);
}

/** The page size in force: absent, 0, negative or above the ceiling becomes the ceiling. */
export function effectiveLimit(limit: number | undefined | null, parameters: HttpFilterParameters): number | undefined {
  const max = parameters.effectiveMaxLimit;
  if (limit === undefined || limit === null || limit <= 0) return max;
  return max !== undefined && limit > max ? max : limit;
}

function parseItem(
  item: unknown,
  depth: number,
  columns: FilterColumns,
  readValue: FilterValueReader,
  counter: { leaves: number; max: number | undefined },
): Condition {
  if (!isPlainObject(item)) fail(CrudMessages.conditionNotObject);
  const entries = Object.entries(item);
  const orEntry = entries.find(([key]) => key.toLowerCase() === "or");
  if (orEntry !== undefined) {
    if (entries.length !== 1) fail(CrudMessages.conditionNotObject);
    const group = orEntry[1];
    if (!Array.isArray(group) || group.length === 0) fail(CrudMessages.orNotArray);
    if (depth > maxOrDepth) fail(CrudMessages.orTooDeep(maxOrDepth));
    return { kind: "or", conditions: group.map((child) => parseItem(child, depth + 1, columns, readValue, counter)) };
  }
  let name: unknown;
  let conditionText: unknown;
  let value: unknown;
  let hasValue = false;
  for (const [key, entryValue] of entries) {
    const lower = key.toLowerCase();
    if (!conditionKeys.has(lower)) fail(CrudMessages.unknownConditionProperty(key));
    if (lower === "columnname") name = entryValue;
    else if (lower === "condition") conditionText = entryValue;
    else {
      value = entryValue;
      hasValue = true;
    }
  }
  if (typeof name !== "string") fail(CrudMessages.columnNameMissing);
  counter.leaves++;
  if (counter.max !== undefined && counter.leaves > counter.max) fail(CrudMessages.tooManyConditions(counter.max));
  const column = columns.find(name) ?? fail(CrudMessages.columnNotFilterable(name));
  if (typeof conditionText !== "string") fail(CrudMessages.conditionMissing(name));
  const operator =
    operators.get(conditionText.trim().replace(/\s+/g, " ").toUpperCase()) ?? fail(CrudMessages.unknownCondition(conditionText));
  if (operator === "IS NULL" || operator === "IS NOT NULL") {
    if (hasValue && value !== null) fail(CrudMessages.valueNotAllowed(name, operator));
    return { kind: "null", column, negated: operator === "IS NOT NULL" };
  }
  if (!hasValue || value === undefined) fail(CrudMessages.valueMissing(name, operator));
  if (operator === "IN") {
    if (!Array.isArray(value) || value.length === 0 || value.length > maxInValues) fail(CrudMessages.inNotArray(name, maxInValues));
    return { kind: "in", column, values: value.map((v) => convert(column, name, v, readValue)) };
  }
  if (operator === "LIKE" || operator === "NOT LIKE") {
    if (column.type.kind !== "string") fail(CrudMessages.likeOnText(name));
    if (typeof value !== "string") fail(CrudMessages.valueNotConvertible(name, "a string"));
    if (!fitsSize(value, maxLikePatternLength)) fail(CrudMessages.likeTooLong(name, maxLikePatternLength));
    // Read like any text value of the column, so a NUL or a lone surrogate is refused the same way.
    return { kind: "compare", column, operator, value: readValue(column, value) };
  }
  return { kind: "compare", column, operator, value: convert(column, name, value, readValue) };
}

function convert(column: ColumnMapping, name: string, value: unknown, readValue: FilterValueReader): unknown {
  if (value === null || typeof value === "object") fail(CrudMessages.valueNotConvertible(name, expected(column)));
  return readValue(column, value);
}

function expected(column: ColumnMapping): string {
  switch (column.type.kind) {
    case "int32":
    case "lazy":
      return "a 32-bit integer";
    case "int64":
      return "a 64-bit integer (a number or a string of digits)";
    case "float":
      return "a number";
    case "decimal":
      return "a decimal number (a number or a string)";
    case "string":
      return "a string";
    case "boolean":
      return "true or false";
    case "date":
      return "an ISO-8601 date and time";
    case "blob":
      return "base64 text";
  }
}
