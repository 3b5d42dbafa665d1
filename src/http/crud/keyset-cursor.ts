import { InvalidInputError } from "../../errors.js";
import type { OrderByItem } from "../../filter/condition.js";
import { encoderFor } from "../../json/column-json.js";
import { jsonPropertyName } from "../../json/json-visibility.js";
import { Lazy } from "../../mapping/lazy.js";
import { CrudMessages } from "./crud-messages.js";
import type { FilterValueReader } from "./http-filter-body.js";

/** Longest cursor accepted, in characters: a few order columns' values fit many times over. */
export const maxCursorLength = 4096;

const cursorText = /^[A-Za-z0-9_-]+$/;

/**
 * The cursor of a keyset page (`nextCursor`, sent back as `after`): the order it was made for and the order
 * values of the last row of the page, as base64url JSON. It carries no secret and no server state, so any
 * process reads any process's cursor; it is checked when read instead: the order must be the body's, and each
 * value is converted to its column's type (and bound as a parameter), so a forged cursor is a 400, never SQL.
 */
export function encodeCursor(order: readonly OrderByItem[], entity: object): string {
  const values: unknown[] = [orderSignature(order)];
  for (const { column } of order) {
    const value = column.get(entity);
    values.push(column.type.kind === "lazy" ? (value instanceof Lazy ? value.id : null) : encoderFor(column.type)(value));
  }
  return Buffer.from(JSON.stringify(values), "utf8").toString("base64url");
}

/** The order values a cursor carries, converted to the order columns' types; `InvalidInputError` (400) otherwise. */
export function decodeCursor(cursor: unknown, order: readonly OrderByItem[], readValue: FilterValueReader): unknown[] {
  const parsed = cursorArrayOf(cursor, CrudMessages.badCursor);
  if (parsed[0] !== orderSignature(order) || parsed.length !== order.length + 1) throw new InvalidInputError(CrudMessages.cursorOtherOrder);
  return order.map(({ column }, index) => {
    const value = parsed[index + 1];
    if (value === null && column.type.nullable) return null;
    if (value === null || typeof value === "object") throw new InvalidInputError(CrudMessages.cursorValue(jsonPropertyName(column)));
    try {
      return readValue(column, value);
    } catch (error) {
      if (error instanceof InvalidInputError) throw new InvalidInputError(CrudMessages.cursorValue(jsonPropertyName(column)));
      throw error;
    }
  });
}

/**
 * The JSON array a cursor's text holds, its first item a string (the order it was made for): a string of at most
 * `maxCursorLength` base64url characters; `InvalidInputError` with `message` (400) for anything else.
 */
export function cursorArrayOf(cursor: unknown, message: string): [string, ...unknown[]] {
  if (typeof cursor !== "string" || cursor.length > maxCursorLength || !cursorText.test(cursor)) throw new InvalidInputError(message);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw new InvalidInputError(message);
  }
  if (!Array.isArray(parsed) || typeof parsed[0] !== "string") throw new InvalidInputError(message);
  return parsed as [string, ...unknown[]];
}

/** The order a cursor was made for, by wire names: `name+,id+` (DESC is `-`). */
function orderSignature(order: readonly OrderByItem[]): string {
  return order.map((item) => `${jsonPropertyName(item.column)}${item.direction === "ASC" ? "+" : "-"}`).join(",");
}
