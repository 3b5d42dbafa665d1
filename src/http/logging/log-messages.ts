/**
 * Every text the logging part produces itself, in one place: the messages that the default
 * `writeDiscarded` and `writeError` hand to `writeAction`, and the refusal of `HttpLogRedactedNames.add()`.
 * @internal
 */
export const LogMessages = {
  /** The message of the action that the default `HttpLogWriter.writeDiscarded` writes. */
  discarded: (host: string, count: number): string =>
    `${count} log ${count === 1 ? "entry was" : "entries were"} discarded for host ${host}: the log queue was full.`,
  /** The message of the action that the default `HttpLogWriter.writeError` writes. */
  error: (className: string, message: string, nestedClassName: string | undefined, nestedMessage: string | undefined): string =>
    nestedClassName === undefined
      ? `${className}: ${message}`
      : `${className}: ${message} (raised while ${nestedClassName} was in flight: ${nestedMessage ?? ""})`,
  /** The message of an error record when the response failed with no exception (a handler that set status >= 500 itself). */
  noException: (statusCode: number): string => `The response status was ${statusCode}; no exception was thrown.`,
  /** The refusal of `HttpLogRedactedNames.add()` / `remove()` while a server runs. */
  redactedNamesLocked: (name: string): string =>
    `The log redaction list cannot change while a server is running (name ${JSON.stringify(name)}). Change it before start() or after stop().`,
  /** A pool size that is not a positive integer. */
  invalidPoolSize: (value: number): string => `The log thread pool size must be a positive integer, not ${value}.`,
} as const;

/** The value that replaces a redacted header or parameter. */
export const REDACTED = "<redacted>";

/** The discard counter key of requests with no usable Host and of hosts beyond the 64 counted ones. */
export const OTHER_HOST = "<other>";
