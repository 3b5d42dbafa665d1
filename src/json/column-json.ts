import { InvalidInputError } from "../errors.js";
import { type ColumnType, int32Range, int64Range } from "../mapping/column-type.js";
import { bufferOf } from "../values/bytes.js";
import { decimalTextOf, isDecimalText, normalizeExactDecimal } from "../values/decimal-text.js";
import { formatIsoTime, parseIsoDate } from "../values/iso-date.js";
import { textFaultOf } from "../values/text.js";
import { JsonMessages, jsonTypeOf } from "./json-messages.js";
import type { JsonValue } from "./json-value.js";
import { type WireNamed, wireNameOf } from "../mapping/wire-name.js";

/**
 * How each column type is written to and read from JSON: int64 as a string of
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
const encodeText: ColumnEncoder = (value) => (typeof value === "string" ? value : value == null ? null : String(value));
const encodeBoolean: ColumnEncoder = (value) => (value == null ? null : Boolean(value));
const encodeDate: ColumnEncoder = (value) => {
  if (!(value instanceof Date)) return null;
  const time = value.getTime();
  return Number.isNaN(time) ? null : formatIsoTime(time, value);
};
const encodeBlob: ColumnEncoder = (value) => (value instanceof Uint8Array ? bufferOf(value).toString("base64") : null);

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

const digits = /^-?\d+$/;
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The decoder of a column type for the JSON property `property`. A `lazy` type decodes its key (an int32). */
export function decoderFor(type: ColumnType<unknown>, property: string): ColumnDecoder {
  const wrong = (expected: string, json: unknown): never => {
    throw new InvalidInputError(JsonMessages.wrongType(property, expected, jsonTypeOf(json)), { property });
  };
  const decode = ((): ColumnDecoder => {
    switch (type.kind) {
      case "int32":
      case "lazy":
        return (json) => {
          if (typeof json !== "number" || !Number.isInteger(json)) return wrong("an integer", json);
          if (json < int32Range.min || json > int32Range.max)
            throw new InvalidInputError(JsonMessages.outOfRange(property, "a 32-bit integer"), { property });
          return json;
        };
      case "int64":
        return (json) => {
          if (typeof json === "number" && Number.isSafeInteger(json)) return BigInt(json);
          if (typeof json !== "string" || !digits.test(json)) return wrong("a string of digits or a safe integer", json);
          const value = BigInt(json);
          if (value < int64Range.min || value > int64Range.max)
            throw new InvalidInputError(JsonMessages.outOfRange(property, "a 64-bit integer"), { property });
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
            if (!isDecimalText(text)) return wrong("a decimal string or a number", json);
            throw new InvalidInputError(JsonMessages.decimalTooPrecise(property, type.precision ?? 18, type.scale ?? 0), { property });
          }
          return normalized;
        };
      case "string":
        return (json) => {
          if (typeof json !== "string") return wrong("a string", json);
          const fault = textFaultOf(json);
          if (fault !== undefined) throw new InvalidInputError(JsonMessages.unstorableText(property, fault), { property });
          return json;
        };
      case "boolean":
        return (json) => (typeof json === "boolean" ? json : wrong("a boolean", json));
      case "date":
        return (json) => {
          if (typeof json !== "string") return wrong("an ISO-8601 date string", json);
          const date = parseIsoDate(json);
          if (date === undefined) throw new InvalidInputError(JsonMessages.invalidDate(property), { property });
          return date;
        };
      case "blob":
        return (json) => {
          if (typeof json !== "string") return wrong("a base64 string", json);
          if (!base64.test(json)) throw new InvalidInputError(JsonMessages.invalidBase64(property), { property });
          return new Uint8Array(Buffer.from(json, "base64"));
        };
    }
  })();
  const nullable = type.nullable;
  return (json) => {
    if (json === null) {
      if (!nullable) throw new InvalidInputError(JsonMessages.notNullable(property), { property });
      return null;
    }
    return decode(json);
  };
}

/**
 * Reads a JSON value for a column as its entity value (a `Lazy<T>` column: its key), throwing
 * `InvalidInputError` that names the JSON property. For values a client sends outside an entity, such as
 * the values of a filter body.
 */
export function decodeColumnJson(
  column: { readonly type: ColumnType<unknown>; readonly property: string; readonly annotations?: WireNamed["annotations"] },
  json: unknown,
): unknown {
  let decode = columnDecoders.get(column);
  if (decode === undefined) {
    const name = column.annotations === undefined ? column.property : wireNameOf(column as WireNamed);
    decode = decoderFor(column.type, column.type.kind === "lazy" ? `${name}Id` : name);
    columnDecoders.set(column, decode);
  }
  return decode(json);
}

/**
 * The decoder `decodeColumnJson` made for each column it was given: made once per column, not once per value (a
 * decoder is three closures; every PUT reads its entity's key through here). A column's type and names do not change.
 */
const columnDecoders = new WeakMap<object, ColumnDecoder>();
