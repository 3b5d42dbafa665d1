import { parseIsoDate } from "../iso-date.js";
import type { ColumnType } from "../mapping/column-type.js";

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
      return typeof value === "string" ? parseIsoDate(value) : new Date(typeof value === "bigint" ? Number(value) : (value as number));
    case "blob":
      return value instanceof Uint8Array
        ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength)
        : new TextEncoder().encode(String(value));
  }
}

/**
 * Writes a decimal with exactly `scale` digits after the point, so every engine returns the same text.
 * Extra digits (a REAL column of the embedded engine, say) are rounded half away from zero.
 */
export function normalizeDecimal(text: string, scale: number | undefined): string {
  const trimmed = text.trim();
  const match = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(trimmed);
  if (match === null || scale === undefined) return text;
  if (match[4] !== undefined) return normalizeDecimal(expandExponent(trimmed), scale);
  const negative = match[1] === "-";
  const fraction = match[3] ?? "";
  let units = BigInt((match[2] || "0") + fraction.padEnd(scale, "0").slice(0, scale));
  if (fraction.length > scale && fraction.charCodeAt(scale) >= 53 /* "5" */) units += 1n;
  const digits = units.toString().padStart(scale + 1, "0");
  const result = scale > 0 ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return negative && units !== 0n ? `-${result}` : result;
}

function expandExponent(text: string): string {
  const number = Number(text);
  return Number.isFinite(number) ? number.toFixed(20).replace(/0+$/, "").replace(/\.$/, "") : text;
}
