/**
 * Whether the header names `name` and `other` are the same without regard to ASCII case (header names are ASCII
 * tokens, RFC 9110 5.1). A name sent as it is looked up (most clients send lower case) is told by one comparison,
 * and one of another length by its length; the rest are compared code by code, with no lower-case copy of
 * either (`toLowerCase()` is a call into the runtime and a new string). Only ASCII capitals fold: node's raw
 * headers are latin1 text, where no character past ASCII lower-cases into ASCII.
 * @internal
 */
export function isHeaderName(name: string, other: string): boolean {
  if (name === other) return true;
  const length = name.length;
  if (length !== other.length) return false;
  for (let i = 0; i < length; i++) {
    let x = name.charCodeAt(i);
    let y = other.charCodeAt(i);
    if (x === y) continue;
    if (x >= 65 && x <= 90) x += 32;
    if (y >= 65 && y <= 90) y += 32;
    if (x !== y) return false;
  }
  return true;
}
