import { InvalidInputError } from "../../errors.js";
import type { ColumnType } from "../../mapping/column-type.js";
import { decimalTextOfUnits, exactDecimalOf, normalizeDecimal, scaledUnitsOf } from "../../values/decimal-text.js";
import { ValueMessages } from "../../values/value-messages.js";

/**
 * How SQLite holds an exact decimal (docs/engines.md "Decimals on SQLite"). SQLite has no exact decimal
 * type: a NUMERIC or REAL column keeps 15 significant digits. Tenon therefore stores the value scaled by
 * 10^scale: as a 64-bit integer up to precision 18 (every such value fits, and SQLite compares and orders
 * integers numerically), and above it as fixed-width text that sorts as the number does: `P` and the
 * `precision` digits of the magnitude, or for a negative value `N` and their nines' complement.
 */

/** What the stored form depends on: the decimal column type's precision and scale. */
export type DecimalType = Pick<ColumnType<unknown>, "precision" | "scale">;

/** The largest precision stored as a 64-bit integer: 10^18 - 1 < 2^63. */
export const maxIntegerPrecision = 18;

/** The stored form of a decimal value (text, number or bigint) of the column type `type`. */
export function toSqliteDecimal(value: unknown, type: DecimalType): bigint | string {
  const precision = type.precision ?? maxIntegerPrecision;
  const scale = type.scale ?? 0;
  const exact = exactDecimalOf(value, precision, scale);
  const units = exact === undefined ? undefined : scaledUnitsOf(exact, scale);
  // Writes are validated before they get here; a value of a filter built in code may still not fit.
  if (units === undefined) throw new InvalidInputError(ValueMessages.decimalDoesNotFit(String(value), precision, scale));
  if (precision <= maxIntegerPrecision) return units;
  if (units >= 0n) return `P${units.toString().padStart(precision, "0")}`;
  const digits = (-units).toString().padStart(precision, "0");
  let complement = "N";
  for (let i = 0; i < digits.length; i++) complement += String(57 - digits.charCodeAt(i));
  return complement;
}

/**
 * The decimal text of a stored value. Besides the two forms above it reads what an earlier Tenon stored:
 * decimal text, and a REAL of a NUMERIC column (a whole number there is indistinguishable from a scaled
 * integer, which is why such a database is converted once, as docs/engines.md says).
 */
export function fromSqliteDecimal(value: unknown, type: DecimalType): string {
  const scale = type.scale ?? 0;
  if (typeof value === "bigint") return decimalTextOfUnits(value, scale);
  if (typeof value === "number") {
    return Number.isInteger(value) ? decimalTextOfUnits(BigInt(value), scale) : normalizeDecimal(String(value), scale);
  }
  const text = String(value);
  const sign = text.charCodeAt(0);
  if (sign === 80 /* P */) return decimalTextOfUnits(BigInt(text.slice(1)), scale);
  if (sign === 78 /* N */) {
    let digits = "";
    for (let i = 1; i < text.length; i++) digits += String(57 - text.charCodeAt(i));
    return decimalTextOfUnits(-BigInt(digits), scale);
  }
  // Digits without a point: a scaled integer that a TEXT column's affinity turned into text (an earlier
  // Tenon wrote decimal text with its scale, so with a point whenever the scale is above 0).
  if (wholeNumber.test(text)) return decimalTextOfUnits(BigInt(text), scale);
  return normalizeDecimal(text, scale);
}

const wholeNumber = /^-?\d+$/;
