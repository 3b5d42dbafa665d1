/**
 * Whether the header name `name` is `lower` (a lower-case ASCII name) without regard to case. A name sent in
 * lower case (as most clients send them) is told by one comparison, and a name that cannot be `lower` by its
 * length or its first letter costs no lower-case copy: `toLowerCase()` is a call into the runtime and a new
 * string, made here only for a name that may match in another case. Names are read from node's raw headers,
 * latin1 text, where no character past ASCII lower-cases into ASCII, so the first-letter test is exact.
 * @internal
 */
export function isHeaderName(name: string, lower: string): boolean {
  return (
    name === lower || (name.length === lower.length && (name.charCodeAt(0) | 32) === lower.charCodeAt(0) && name.toLowerCase() === lower)
  );
}
