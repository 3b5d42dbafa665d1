/**
 * `tenon/http`: the HTTP server, controllers and routing, authentication, CORS, logging, and the generic
 * entity reader and writer.
 * @packageDocumentation
 */
export {};
export { HttpLogger, type HttpLoggerOptions, type LoggedRequest, type LoggedResponse, type LoggedUser } from "./logging/http-logger.js";
export { HttpLogParameters, type HttpLogParameterOptions } from "./logging/http-log-parameters.js";
export { HttpLogWriter, type HttpLogWriterClass } from "./logging/http-log-writer.js";
export { HttpLogRedactedNames } from "./logging/http-log-redacted-names.js";
export { HttpLogAction, HttpLogDiscarded, HttpLogError, HttpLogRequest, HttpLogResponse } from "./logging/http-log-records.js";
export type { HttpLogNameValues, HttpLogNameValueJson, HttpLogUser } from "./logging/http-log-records.js";
export { JsonLinesLogWriter, type JsonLinesLogKind } from "./logging/json-lines-log-writer.js";
