/**
 * The proxy-aware client address (SPEC.md 2.4 ClientIP): the last `X-Forwarded-For` entry, but only when
 * the TCP peer is a loopback address (the reverse proxy on the same machine). Earlier entries are ignored
 * because any client can write them.
 * @internal
 */

/** True for 127.*, ::1 and their ::ffff:-mapped forms. */
export function isLoopback(address: string): boolean {
  let value = address.trim();
  if (value.length > 7 && value.slice(0, 7).toLowerCase() === "::ffff:") value = value.slice(7);
  return value.startsWith("127.") || value === "::1" || value === "0:0:0:0:0:0:0:1";
}

/** Strips a port and the brackets of an IPv6 literal: `[::1]:80` → `::1`, `1.2.3.4:80` → `1.2.3.4`. */
export function stripPort(entry: string): string {
  const value = entry.trim();
  if (value.startsWith("[")) {
    const close = value.indexOf("]");
    return close > 0 ? value.slice(1, close) : value;
  }
  const colon = value.indexOf(":");
  if (colon > 0 && value.indexOf(":", colon + 1) < 0) return value.slice(0, colon);
  return value;
}

/** The client address of a request whose peer is `remoteIp` and whose first X-Forwarded-For header is `forwardedFor`. */
export function clientIpOf(remoteIp: string, forwardedFor: string | undefined): string {
  if (forwardedFor === undefined || !isLoopback(remoteIp)) return remoteIp;
  const comma = forwardedFor.lastIndexOf(",");
  const last = stripPort(comma >= 0 ? forwardedFor.slice(comma + 1) : forwardedFor);
  return last === "" ? remoteIp : last;
}
