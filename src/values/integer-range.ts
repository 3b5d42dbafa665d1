/** The ranges of the integer column types: a key, version or int32 outside them never reaches a database. */

/** The smallest and largest value of a 32-bit signed integer column (and of every key and version). */
export const int32Range = { min: -2147483648, max: 2147483647 } as const;

/** The smallest and largest value of a 64-bit signed integer column. */
export const int64Range = { min: -(2n ** 63n), max: 2n ** 63n - 1n } as const;

/** Whether `value` is an integer that a 32-bit signed column holds. */
export function isInt32(value: number): boolean {
  return Number.isInteger(value) && value >= int32Range.min && value <= int32Range.max;
}
