import { InvalidInputError } from "../errors.js";
import { formatIsoTime } from "../iso-date.js";
import type { ColumnType } from "../mapping/column-type.js";
import { decimalTextOf } from "../validation/decimal-compare.js";
import { JsonMessages, jsonTypeOf } from "./json-messages.js";
import type { JsonValue } from "./json-value.js";

/**
 * How each column type is written to and read from JSON (API.md "JSON of entities"): int64 as a string of
 * digits (exact beyond 2^53), decimals as strings with the column's scale, dates as ISO-8601 UTC with `Z`,
 * blobs as base64. The functions are chosen once per column when a serializer plan is built.
 */

/** Writes an entity value of a column type as JSON. */
export type ColumnEncoder = (value: unknown) => JsonValue;
/** Reads a JSON value into an entity value of a column type; throws `InvalidInputError` naming the property. */
export type ColumnDecoder = (json: unknown) => unknown;

const encodeNumber: ColumnEncoder = (value) =>
  typeof value === "number" && Number.isFinite(value)
    ? value
    : value == null
      ? null
      : Number.isFinite(Number(value))
        ? Number(value)
        : null;
const encodeInt64: ColumnEncoder = (value) =>
  value == null ? null : typeof value === "number" ? String(Math.trunc(value)) : String(value);
const encodeText: ColumnEncoder = (value) => (value == null ? null : String(value));
const encodeBoolean: ColumnEncoder = (value) => (value == null ? null : Boolean(value));
const encodeDate: ColumnEncoder = (value) => {
  if (!(value instanceof Date)) return null;
  const time = value.getTime();
  return Number.isNaN(time) ? null : formatIsoTime(time, value);
};
const encodeBlob: ColumnEncoder = (value) =>
  value instanceof Uint8Array ? Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64") : null;

/** The encoder of a (non-lazy) column type. */
export function encoderFor(type: ColumnType<unknown>): ColumnEncoder {
  switch (type.kind) {
    case "int32":
    case "float":
    case "lazy":
      return encodeNumber;
    case "int64":
      return encodeInt64;
    case "decimal":
    case "string":
      return encodeText;
    case "boolean":
      return encodeBoolean;
    case "date":
      return encodeDate;
    case "blob":
      return encodeBlob;
  }
}

const int32Min = -2147483648;
const int32Max = 2147483647;
const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;
const digits = /^-?\d+$/;
const decimalText = /^(-?)(\d+)(?:\.(\d+))?$/;
const isoDate = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2}))?$/;
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The decoder of a column type for the JSON property `property`. A `lazy` type decodes its key (an int32). */
export function decoderFor(type: ColumnType<unknown>, property: string): ColumnDecoder {
  const wrong = (expected: string, json: unknown): never => {
    throw new InvalidInputError(JsonMessages.wrongType(property, expected, jsonTypeOf(json)));
  };
  const decode = ((): ColumnDecoder => {
    switch (type.kind) {
      case "int32":
      case "lazy":
        return (json) => {
          if (typeof json !== "number" || !Number.isInteger(json)) return wrong("an integer", json);
          if (json < int32Min || json > int32Max) throw new InvalidInputError(JsonMessages.outOfRange(property, "a 32-bit integer"));
          return json;
        };
      case "int64":
        return (json) => {
          if (typeof json === "number" && Number.isSafeInteger(json)) return BigInt(json);
          if (typeof json !== "string" || !digits.test(json)) return wrong("a string of digits or a safe integer", json);
          const value = BigInt(json);
          if (value < int64Min || value > int64Max) throw new InvalidInputError(JsonMessages.outOfRange(property, "a 64-bit integer"));
          return value;
        };
      case "float":
        return (json) => (typeof json === "number" && Number.isFinite(json) ? json : wrong("a finite number", json));
      case "decimal":
        return (json) => {
          const text =
            typeof json === "string"
              ? json.trim()
              : typeof json === "number" && Number.isFinite(json)
                ? decimalTextOf(json)
                : wrong("a decimal string or a number", json);
          const normalized = normalizeExactDecimal(text, type.precision ?? 18, type.scale ?? 0);
          if (normalized === undefined) {
            if (!decimalText.test(text)) return wrong("a decimal string or a number", json);
            throw new InvalidInputError(JsonMessages.decimalTooPrecise(property, type.precision ?? 18, type.scale ?? 0));
          }
          return normalized;
        };
      case "string":
        return (json) => (typeof json === "string" ? json : wrong("a string", json));
      case "boolean":
        return (json) => (typeof json === "boolean" ? json : wrong("a boolean", json));
      case "date":
        return (json) => {
          if (typeof json !== "string") return wrong("an ISO-8601 date string", json);
          const date = parseIsoDate(json);
          if (date === undefined) throw new InvalidInputError(JsonMessages.invalidDate(property));
          return date;
        };
      case "blob":
        return (json) => {
          if (typeof json !== "string") return wrong("a base64 string", json);
          if (!base64.test(json)) throw new InvalidInputError(JsonMessages.invalidBase64(property));
          return new Uint8Array(Buffer.from(json, "base64"));
        };
    }
  })();
  const nullable = type.nullable;
  return (json) => {
    if (json === null) {
      if (!nullable) throw new InvalidInputError(JsonMessages.notNullable(property));
      return null;
    }
    return decode(json);
  };
}

/**
 * A decimal text with exactly `scale` digits after the point, or undefined when the text is not a plain
 * decimal, has more integer digits than `precision - scale`, or has non-zero digits beyond `scale`
 * (an exact column never rounds silently).
 */
export function normalizeExactDecimal(text: string, precision: number, scale: number): string | undefined {
  const match = decimalText.exec(text);
  if (match === null) return undefined;
  const whole = match[2].replace(/^0+(?=\d)/, "");
  const fraction = match[3] ?? "";
  if (/[1-9]/.test(fraction.slice(scale))) return undefined;
  if (whole !== "0" && whole.length > precision - scale) return undefined;
  const kept = fraction.slice(0, scale).padEnd(scale, "0");
  const result = scale > 0 ? `${whole}.${kept}` : whole;
  return match[1] === "-" && /[1-9]/.test(result) ? `-${result}` : result;
}

/**
 * Reads an ISO-8601 date (`2024-05-01`, read as UTC midnight) or date and time with a zone (`Z` or
 * `+02:00`); a time without a zone is ambiguous and refused, as is an impossible calendar date.
 */
export function parseIsoDate(text: string): Date | undefined {
  const match = isoDate.exec(text);
  if (match === null) return undefined;
  const [, y, mo, d, h = "0", mi = "0", s = "0", fraction = "", zone = "Z"] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (zone !== "Z") {
    const offsetHours = Number(zone.slice(1, 3));
    const offsetRest = Number(zone.slice(4, 6));
    if (offsetHours > 23 || offsetRest > 59) return undefined;
    offsetMinutes = (zone[0] === "-" ? -1 : 1) * (offsetHours * 60 + offsetRest);
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute - offsetMinutes, second, Number(fraction.padEnd(3, "0").slice(0, 3)));
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * Reads a JSON value for a column as its entity value (a `Lazy<T>` column: its key), throwing
 * `InvalidInputError` that names the JSON property. For values a client sends outside an entity, such as
 * the values of a filter body.
 */
export function decodeColumnJson(column: { readonly type: ColumnType<unknown>; readonly property: string }, json: unknown): unknown {
  return decoderFor(column.type, column.type.kind === "lazy" ? `${column.property}Id` : column.property)(json);
}
