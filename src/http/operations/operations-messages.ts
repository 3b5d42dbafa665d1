/**
 * Every text of the operations features (metrics, tracing, rate limits, the slow request log), in one place;
 * docs/errors.md lists them.
 * @internal
 */
export const OperationsMessages = {
  metricsTokenTooShort: (length: number) =>
    `The metrics token must be at least 16 characters (it has ${length}): metrics are never served without credentials.`,
  metricsInvalidPath: (path: string) => `The metrics path '${path}' must start with '/' and carry no query.`,
  metricsNeedPromClient: "Metrics need the optional peer dependency prom-client: npm install prom-client.",
  metricsUnauthorized: "Access unauthorized: metrics.",
  metricsMethodNotAllowed: (method: string) => `Method ${method} not allowed for metrics.`,
  metricsFailed: "The metrics could not be collected.",
  tooManyRequests: (seconds: number) => `Too many requests: try again in ${seconds} seconds.`,
  rateLimitStoreFailed: "The rate-limit store failed.",
  rateLimitStoreTimedOut: (ms: number) => `The rate-limit store did not answer within ${ms} ms.`,
  invalidRateLimitName: (name: string) => `The rate limit name '${name}' must be 1 to 64 letters, digits, '_' or '-'.`,
  duplicateRateLimit: (name: string) => `The rate limit '${name}' was already added.`,
  invalidRateLimitValue: (setting: string, value: unknown) =>
    `The rate limit's ${setting} must be a positive integer, not ${String(value)}.`,
  invalidRateLimitBy: (by: string) => `The rate limit's 'by' must be 'ip' or 'user', not '${by}'.`,
  unknownRateLimitRoute: (route: string) =>
    `The rate limit's route '${route}' is not a registered route (method and template, base URI included).`,
  invalidRateLimitRoute: (route: string) =>
    `The rate limit's route '${route}' must be a method and a path template, such as 'POST /api/logon'.`,
} as const;
