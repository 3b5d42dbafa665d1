import { BlockList, isIP } from "node:net";
import { HttpServerError } from "./http-errors.js";
import { HttpDefaults, HttpMessages } from "./http-messages.js";

/**
 * The proxy-aware client address: the last `X-Forwarded-For` entry, but only when
 * the TCP peer is a trusted proxy (by default a loopback address: the reverse proxy on the same machine).
 * Earlier entries are ignored because any client can write them.
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

/** Decides whether a TCP peer is a proxy whose `X-Forwarded-For` is believed. @internal */
export type TrustedProxyRule = (peer: string) => boolean;

/** The default rule: loopback peers only. @internal */
export const loopbackProxies: TrustedProxyRule = isLoopback;

/**
 * Builds the rule for a list of addresses and CIDR ranges (`10.0.0.0/8`, `::1`, `fd00::/8`). A peer in its
 * `::ffff:`-mapped IPv4 form matches the IPv4 entries. Throws `HttpServerError` for an entry that is neither.
 * @internal
 */
export function trustedProxyRule(entries: readonly string[]): TrustedProxyRule {
  if (entries.length === 0) return () => false;
  // The default list (loopback peers) is the loopback rule: no BlockList, whose first use costs start-up time.
  const loopback = HttpDefaults.trustedProxies;
  if (entries.length === loopback.length && loopback.every((entry) => entries.includes(entry))) return loopbackProxies;
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix, ...rest] = entry.trim().split("/");
    const family = isIP(address ?? "");
    const bits = prefix === undefined ? (family === 6 ? 128 : 32) : Number(prefix);
    const valid =
      rest.length === 0 && family !== 0 && (prefix === undefined || /^\d{1,3}$/.test(prefix)) && bits <= (family === 6 ? 128 : 32);
    if (!valid) throw new HttpServerError(HttpMessages.invalidTrustedProxy(entry));
    list.addSubnet(address, bits, family === 6 ? "ipv6" : "ipv4");
  }
  return (peer) => {
    let value = peer;
    if (value.length > 7 && value.slice(0, 7).toLowerCase() === "::ffff:" && isIP(value.slice(7)) === 4) value = value.slice(7);
    const family = isIP(value);
    return family !== 0 && list.check(value, family === 6 ? "ipv6" : "ipv4");
  };
}

/**
 * The client address of a request whose peer is `remoteIp` and whose first X-Forwarded-For header is
 * `forwardedFor`, believing the header only from a peer that `trusted` accepts (loopback by default).
 */
export function clientIpOf(remoteIp: string, forwardedFor: string | undefined, trusted: TrustedProxyRule = loopbackProxies): string {
  if (forwardedFor === undefined || !trusted(remoteIp)) return remoteIp;
  const comma = forwardedFor.lastIndexOf(",");
  const last = stripPort(comma >= 0 ? forwardedFor.slice(comma + 1) : forwardedFor);
  return last === "" ? remoteIp : last;
}
