import { type IntegerRange, int32Range, int64Range } from "../mapping/column-type.js";
import type { ColumnMapping } from "../mapping/entity-mapping.js";
import { exactDecimalOf } from "../values/decimal-text.js";
import { fitsSize, textFaultOf } from "../values/text.js";
import { ValidationMessages } from "./validation-messages.js";

/** One check of a column value: the failure message, or undefined when the value passes. */
export type FitCheck = (value: unknown) => string | undefined;

/**
 * The checks that every column gets without a decorator: the value must fit the column as the database
 * will hold it. A decimal must have at most `precision - scale` integer digits and no non-zero digit beyond
 * `scale`; a text must have at most `size` code points (how every engine counts a column's size, whatever
 * `@MaxLength` counted) and neither a NUL character nor a lone surrogate; an integer must be a whole number in
 * its column's range (int32, int64) and a float a finite number, which the engines would otherwise each treat
 * their own way (PostgreSQL refuses 2^31 in an int32 column, SQLite stores it; MariaDB rounds 1.5; MariaDB
 * refuses NaN, PostgreSQL stores it). They run at validation time,
 * after the before-events, so a value an event computed is checked like one a client sent: it fails as a
 * 422 instead of reaching the database as a 500, a rounded number or a row that can no longer be read.
 * `name` is the name the messages use.
 */
export function columnFitChecks(column: ColumnMapping, name: string): FitCheck[] {
  const type = column.type;
  if (type.kind === "decimal") {
    const precision = type.precision ?? 18;
    const scale = type.scale ?? 0;
    const message = ValidationMessages.decimalDoesNotFit(name, precision, scale);
    return [
      (value) => {
        if (value === null || value === undefined) return undefined;
        return exactDecimalOf(value, precision, scale) === undefined ? message : undefined;
      },
    ];
  }
  if (type.kind === "int32") return [integerCheck(int32Range, ValidationMessages.integerDoesNotFit(name, int32Range.min, int32Range.max))];
  if (type.kind === "int64") return [integerCheck(int64Range, ValidationMessages.integerDoesNotFit(name, int64Range.min, int64Range.max))];
  if (type.kind === "float") {
    const message = ValidationMessages.floatDoesNotFit(name);
    return [(value) => (typeof value === "number" && !Number.isFinite(value) ? message : undefined)];
  }
  if (type.kind !== "string") return [];
  const checks: FitCheck[] = [
    (value) => {
      // The empty text (an audit column's `By` before its first write) has nothing to look for.
      if (typeof value !== "string" || value.length === 0) return undefined;
      const fault = textFaultOf(value);
      return fault === undefined ? undefined : ValidationMessages.unstorableText(name, fault);
    },
  ];
  const size = type.size;
  if (size !== undefined) {
    const message = ValidationMessages.columnSize(name, size);
    checks.unshift((value) => (typeof value === "string" && !fitsSize(value, size) ? message : undefined));
  }
  return checks;
}

/** A number or bigint must be a whole number within `range`; other values are the type's business, not the fit's. */
function integerCheck(range: IntegerRange<number> | IntegerRange<bigint>, message: string): FitCheck {
  return (value) => {
    if (typeof value === "number") return Number.isInteger(value) && value >= range.min && value <= range.max ? undefined : message;
    if (typeof value === "bigint") return value >= range.min && value <= range.max ? undefined : message;
    return undefined;
  };
}
