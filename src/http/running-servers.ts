/**
 * How many `HttpServer`s are between `start()` and `stop()` in this process. The server keeps the count;
 * settings that must not change while any server runs (the redaction list) read it.
 * @internal
 */
export const runningServers = { count: 0 };
