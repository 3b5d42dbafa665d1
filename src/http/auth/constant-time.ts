import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Compares two secrets in time that depends on neither their content nor their lengths (both are hashed
 * first), so a caller cannot learn a password or a key byte by byte from response times.
 */
export function constantTimeEquals(a: string | Buffer, b: string | Buffer): boolean {
  const left = createHash("sha256").update(a).digest();
  const right = createHash("sha256").update(b).digest();
  return timingSafeEqual(left, right);
}
