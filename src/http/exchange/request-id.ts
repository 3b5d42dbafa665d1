import { randomUUID } from "node:crypto";

/**
 * The longest `X-Request-Id` taken from a caller; a longer one is replaced. Bounded so that a caller cannot
 * make every log record of its requests large.
 */
export const maxRequestIdLength = 128;

/**
 * The characters a caller's `X-Request-Id` may use: letters, digits and `- _ . : + / =` (UUIDs, hex and
 * base64 ids, the ids that proxies and load balancers generate). Nothing that a log line or a header could
 * misread: no space, no quote, no control character.
 */
const requestIdPattern = /^[A-Za-z0-9\-_.:+/=]+$/;

/** True when `value` is a request id this server passes on as sent: 1 to 128 characters of the allowed alphabet. */
export function isWellFormedRequestId(value: string): boolean {
  return value.length > 0 && value.length <= maxRequestIdLength && requestIdPattern.test(value);
}

/**
 * The id of a request: its first `X-Request-Id` header when well-formed, else a fresh random UUID. Reads the
 * raw header list once, comparing lengths before names, so a request without the header costs a scan of
 * lengths and one UUID.
 * @internal
 */
export function requestIdOf(rawHeaders: readonly string[]): string {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    if (name.length === 12 && name.toLowerCase() === "x-request-id") {
      const value = rawHeaders[i + 1];
      return isWellFormedRequestId(value) ? value : randomUUID();
    }
  }
  return randomUUID();
}
