/**
 * The texts of the OpenAPI document: the descriptions of the standard answers and of the generated
 * parameters (STYLE.md "one home for each fact"). @internal
 */
export const OpenApiMessages = {
  defaultTitle: "Tenon API",
  defaultVersion: "1.0.0",
  success: "Success.",
  placeholder: (index: number): string => `Placeholder ${index} of the route.`,
  integerPlaceholder: "A 32-bit integer; any other value is answered 400.",
  catchAll: "The rest of the path (a catch-all: zero or more segments).",
  areas: (areas: readonly string[]): string => `Requires the area${areas.length > 1 ? "s" : ""}: ${areas.join(", ")}.`,
  anonymous: "Anonymous: served without authentication.",
  basicScheme: "HTTP Basic authentication.",
  bearerScheme: "A bearer token in the Authorization header.",
  retryAfter: "Seconds to wait before trying again.",
  wwwAuthenticate: "The authentication scheme expected.",
  allow: "The methods the address answers.",
  badRequest: "The request is malformed: a bad placeholder, JSON body, filter or header.",
  unauthorized: "The caller is not authenticated.",
  forbidden: "The caller lacks an area the route requires.",
  notFound: "No entity with this id, or no route at the address.",
  methodNotAllowed: "The address does not answer this method.",
  requestTimeout: "The request line, headers or body arrived too slowly.",
  conflict: "A stale version, a duplicate key, or a delete that a relation refuses.",
  payloadTooLarge: "The body is larger than the server accepts.",
  expectationFailed: "An `Expect` header the server does not meet.",
  unprocessableEntity: "The entity fails validation; `errors` lists every failure.",
  headersTooLarge: "The request headers are too large.",
  internalServerError: "An unexpected failure; `taskId` ties it to the server's log.",
  serviceUnavailable: "A transient failure (database unreachable, server draining): try again after `Retry-After`.",
} as const;
