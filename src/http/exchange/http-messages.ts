/**
 * Every status code, error text and default value of the HTTP server, in one place (one home
 * for each fact). Nothing else in `src/http` writes a user-visible sentence of its own (the CRUD layer's
 * are in crud/crud-messages.ts, the logging part's in logging/log-messages.ts); docs/errors.md lists them.
 * @internal
 */

/**
 * Status codes the server answers by itself. Each has its entry in `HttpStatusCatalogue`
 * (http-status-catalogue.ts), which the error answers and the OpenAPI document both read.
 */
export const HttpStatus = {
  ok: 200,
  created: 201,
  notModified: 304,
  badRequest: 400,
  unauthorized: 401,
  forbidden: 403,
  notFound: 404,
  methodNotAllowed: 405,
  conflict: 409,
  requestTimeout: 408,
  gone: 410,
  preconditionFailed: 412,
  payloadTooLarge: 413,
  expectationFailed: 417,
  unprocessableEntity: 422,
  preconditionRequired: 428,
  tooManyRequests: 429,
  headersTooLarge: 431,
  internalServerError: 500,
  serviceUnavailable: 503,
} as const;

/** Defaults of the server's settings (docs/http.md lists them). */
export const HttpDefaults = {
  serverHeader: "tenon",
  /** The most items one bulk body of the generic writer may carry (`HttpEntityWriter.maxBulkItems`). */
  maxBulkItems: 1000,
  /** How long an `Idempotency-Key` of the generic writer is remembered (`HttpEntityWriter.idempotencyWindowSeconds`). */
  idempotencyWindowSeconds: 86400,
  maxRequestContentLength: 1048576,
  /** The largest body of a route that reads its body as a stream (an NDJSON import): 1 GiB. */
  maxStreamedContentLength: 1073741824,
  corsMaxAge: 600,
  corsAllowMethods: "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS",
  corsAlwaysAllowedHeaders: "Content-Type, Authorization",
  /** The response headers a browser lets a cross-origin script read besides the CORS-safelisted ones. */
  corsExposeHeaders: "ETag, Retry-After, X-Request-Id, RateLimit, RateLimit-Policy, X-Consistency-Token",
  /** How long the request line and headers may take to arrive, from the connection's first byte (ms). */
  headersTimeoutMs: 10000,
  /** How long a kept-alive connection may stay idle between requests (ms). */
  keepAliveTimeoutMs: 5000,
  /** The time a body may take before the data-rate credit starts counting (ms). */
  bodyTimeoutMs: 10000,
  /** Every this many body bytes received extend the body's deadline by one second. */
  minBodyDataRate: 512,
  /** How long a connection answered with an error by the server itself may linger before it is destroyed (ms). */
  errorAnswerLingerMs: 2000,
  /** The proxies whose `X-Forwarded-For` is believed: the loopback peers (a reverse proxy on the same machine). */
  trustedProxies: ["127.0.0.0/8", "::1"],
  stopGracePeriodMs: 10000,
  drainDelayMs: 0,
  readinessTimeoutMs: 2000,
  notReadyRetryAfterSeconds: 1,
  jsonContentType: "application/json; charset=utf-8",
  basicRealm: "tenon",
  /** Seconds in the `Retry-After` of a 503 for a transient database failure. */
  retryAfterSeconds: 1,
  /** How long a shared rate-limit store (Redis) may take to count a request before it is answered 503 (ms). */
  rateLimitStoreTimeoutMs: 500,
  /**
   * The status logged, never sent, for a request whose client closed its connection before its handler ran
   * (the "client closed request" of nginx's logs).
   */
  clientGoneStatus: 499,
} as const;

/** The texts of the error bodies (docs/errors.md lists them) and of the refused configuration changes. */
export const HttpMessages = {
  internalServerError: "Internal server error.",
  serviceUnavailable: "Service temporarily unavailable: try again.",
  unauthorized: (path: string) => `Access unauthorized: ${path}.`,
  forbidden: (path: string) => `Access forbidden: ${path}.`,
  commandNotFound: (path: string) => `Command ${path} not found.`,
  entityNotFound: (id: string | number) => `Entity ${id} not found.`,
  uniqueValueTaken: "The entity conflicts with a stored one: a value that must be unique is already taken.",
  methodNotAllowed: (method: string, path: string) => `Method ${method} not allowed for command ${path}.`,
  payloadTooLarge: (limit: number) => `The request body is larger than the ${limit} bytes this server accepts.`,
  methodOverrideRefused: "Method override headers are not accepted by this server.",
  malformedJson: "The request body is not valid JSON.",
  invalidInt32Segment: (segment: string, path: string) => `The segment '${segment}' of ${path} is not a valid 32-bit integer.`,
  notReadyDraining: "Not ready: the server is stopping.",
  notReadyCheckFailed: "Not ready: the readiness check failed.",
  notReadyTimeout: (ms: number) => `Not ready: the readiness check did not answer within ${ms} ms.`,
  malformedRequest: "The request is not valid HTTP/1.1.",
  missingHost: "An HTTP/1.1 request must carry a Host header.",
  requestTimeout: "The request did not arrive in time.",
  clientGoneDuringAuthentication: "The client closed its connection while the request was being authenticated: the handler was not run.",
  importRefused: (lines: number, more: boolean): string =>
    `${more ? "At least " : ""}${lines} line${lines === 1 ? "" : "s"} of the import ${lines === 1 ? "was" : "were"} refused; nothing was written.`,
  clientGoneDuringBody: "The client closed its connection while its request body was being read.",
  bodyStreamReadTwice: "The request body stream can be read once.",
  clientGoneDuringRateLimit: "The client closed its connection while the request waited for the rate-limit store: the handler was not run.",
  headersTooLarge: "The request headers are too large.",
  chunkExtensionsTooLarge: "The chunk extensions of the request body are too large.",
  expectationFailed: (expectation: string) => `The expectation '${expectation}' is not supported: only 100-continue is.`,
  connectNotAllowed: "Method CONNECT is not allowed: this server is not a proxy.",

  refusedWhileRunning: (setting: string) => `${setting} cannot be changed while the server is running.`,
  alreadyRunning: "The server is already running.",
  baseUriWithScheme: (value: string) => `The base URI '${value}' carries a scheme: it must be a path such as /api.`,
  invalidPort: (value: number) => `The port ${value} is not an integer between 0 and 65535.`,
  invalidDuration: (setting: string, value: number) => `${setting} must be a non-negative number of milliseconds, not ${value}.`,
  invalidMaxContentLength: (value: number) => `The maximum request content length ${value} is not a non-negative integer.`,
  invalidTimeout: (setting: string, value: number) => `The ${setting} ${value} is not a non-negative integer.`,
  invalidTrustedProxy: (value: string) => `The trusted proxy '${value}' is not an IPv4 or IPv6 address or CIDR range.`,
  invalidBindAddress: (value: string) => `The bind address '${value}' is not an IPv4 or IPv6 literal (no host names, ports or brackets).`,
  duplicateBindAddress: (value: string) => `The bind address '${value}' was already added.`,
  noAuthentication:
    "No authentication class is registered and allowAnonymous is not set: register one with registerAuthentication() or set allowAnonymous.",
  areaWithoutAuthentication: (route: string) => `The route ${route} requires an area but no authentication class is registered.`,
  areaWithAnonymousRoute: (route: string) =>
    `The route ${route} carries both @Area and @AuthorizationType(None): it would answer 403 to everyone.`,
  controllerAlreadyRegistered: (name: string) => `The controller ${name} is already registered.`,
  controllerWithoutUri: (name: string) => `The controller ${name} has no @Uri and no URI was given to registerController().`,
  controllerWithoutRoutes: (name: string) => `The controller ${name} declares no routes (@Get, @Post, @Put or @Delete).`,
  fixedSegmentAfterPlaceholder: (route: string) =>
    `The route ${route} has a fixed segment after a placeholder: placeholders stand only for the last segments.`,
  catchAllNotLast: (route: string) => `The route ${route} has a catch-all '*' that is not its last segment.`,
  catchAllAfterPlaceholder: (route: string) => `The route ${route} mixes placeholders and a catch-all.`,
  invalidSegment: (route: string, segment: string) =>
    `The route ${route} has an invalid segment '${segment}': '?' and '*' must stand alone.`,
  duplicateRoute: (route: string, first: string, second: string) => `The route ${route} is declared twice: by ${first} and by ${second}.`,
  bearerNoKey: "No key is configured for this token.",
  areaRequired: (area: string, route: string) => `Area ${area} is required by ${route}.`,
  noBearerToken: "No bearer token.",
  invalidBearerToken: (reason: string) => `Invalid bearer token: ${reason}`,
  bearerTokenRefused: "Bearer token refused.",
  noBasicCredentials: "No Basic credentials.",
  malformedBasicCredentials: "Malformed Basic credentials.",
  invalidBasicCredentials: "Invalid Basic credentials.",
  hs256SecretTooShort: (kid: string, bytes: number) => `The HS256 secret of key '${kid}' must be at least ${bytes} bytes.`,
  duplicateKeyId: (kid: string) => `The key id '${kid}' was already added.`,
  decoratorOnStaticOrPrivate: (name: string) => `The routing decorator on ${name} must be on a public instance method.`,
} as const;
