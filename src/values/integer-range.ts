/**
 * Whether `value` is an integer that a 32-bit signed integer holds (a route's id, say): the conversion to a
 * 32-bit integer leaves it as it is. The ranges of the column types live with them (mapping/column-type.ts).
 */
export function isInt32(value: number): boolean {
  return (value | 0) === value;
}
