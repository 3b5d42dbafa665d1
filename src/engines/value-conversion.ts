import type { ColumnType } from "../mapping/column-type.js";
import { normalizeDecimal } from "../values/decimal-text.js";
import { parseIsoTime } from "../values/iso-date.js";

/**
 * Converts a value read by any of the drivers to the entity value of the declared type. The drivers
 * differ in what they hand back (bigint or number or text for integers, Buffer for blobs, text or Date
 * for timestamps); the entity always gets the same JavaScript type.
 */
export function convertCommon(value: unknown, type: ColumnType<unknown>): unknown {
  if (value === null || value === undefined) return null;
  switch (type.kind) {
    case "int32":
    case "lazy":
    case "float":
      return typeof value === "number" ? value : Number(value);
    case "int64":
      return typeof value === "bigint" ? value : BigInt(typeof value === "number" ? Math.trunc(value) : String(value));
    case "decimal":
      return normalizeDecimal(typeof value === "string" ? value : String(value), type.scale);
    case "string":
      return typeof value === "string" ? value : String(value);
    case "boolean":
      return typeof value === "boolean"
        ? value
        : typeof value === "string"
          ? value === "1" || value.toLowerCase() === "true" || value === "t"
          : Number(value) !== 0;
    case "date":
      if (value instanceof Date) return value;
      return typeof value === "string"
        ? new Date(parseIsoTime(value))
        : new Date(typeof value === "bigint" ? Number(value) : (value as number));
    case "blob":
      return value instanceof Uint8Array
        ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength)
        : new TextEncoder().encode(String(value));
  }
}

/**
 * `convertCommon` for one column type, as a function of the value alone: NULL and the usual kinds (numbers, text,
 * dates stored as ISO text) take one or two tests of the value read; any other value or kind goes through
 * `convertCommon`.
 */
export function commonConverterOf(type: ColumnType<unknown>): (value: unknown) => unknown {
  switch (type.kind) {
    case "int32":
    case "lazy":
    case "float":
      return (value) => (typeof value === "number" || value === null ? value : convertCommon(value, type));
    case "string":
      return (value) => (typeof value === "string" || value === null ? value : convertCommon(value, type));
    case "date":
      return (value) => (typeof value === "string" ? new Date(parseIsoTime(value)) : value === null ? null : convertCommon(value, type));
    default:
      return (value) => convertCommon(value, type);
  }
}
