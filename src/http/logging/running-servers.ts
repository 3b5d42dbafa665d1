/**
 * How many `HttpServer`s are between `start()` and `stop()` in this process: the lock of the redaction list,
 * a logging setting that must not change while any server runs. The server keeps the count; the list reads it.
 * @internal
 */
export const runningServers = { count: 0 };
