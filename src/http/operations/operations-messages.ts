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
} as const;
