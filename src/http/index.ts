/**
 * `tenon/http`: the HTTP server, controllers and routing, authentication, CORS, logging, and the generic
 * entity reader and writer.
 * @packageDocumentation
 */
export { HttpServer, type HttpContextSource } from "./server/http-server.js";
export { HttpRequest, type HttpNameValue } from "./exchange/http-request.js";
export {
  HttpResponse,
  type HttpStreamFailure,
  type HttpStreamFailureMode,
  type HttpStreamOptions,
  type HttpStreamProducer,
  type HttpStreamSink,
} from "./exchange/http-response.js";
export { HttpStreamPiece } from "./exchange/http-stream-piece.js";
export { HttpUser } from "./exchange/http-user.js";
export { HttpCorsConfig } from "./server/http-cors-config.js";
export { HttpController, type HttpControllerClass } from "./exchange/http-controller.js";
export {
  HttpError,
  HttpServerError,
  HttpNotFoundError,
  HttpUnauthorizedError,
  HttpForbiddenError,
  HttpMethodNotAllowedError,
  HttpNotReadyError,
  HttpServiceUnavailableError,
  HttpClientGoneError,
  HttpBulkItemError,
  HttpImportRefusedError,
  type HttpImportLineError,
  type HttpRefusedLine,
} from "./exchange/http-errors.js";
export type { HttpReadiness } from "./balancer/http-readiness.js";
export type { HttpMetricsOptions } from "./operations/http-metrics.js";
export type { HttpPoolFigures, PoolFigures, ReplicaRoutingFigures } from "./operations/pool-figures.js";
export { HttpTooManyRequestsError, type HttpRateLimit } from "./operations/rate-limiter.js";
export {
  type HttpRateLimitStore,
  MemoryRateLimitStore,
  RedisRateLimitStore,
  type RateLimitCount,
  type RedisEvalClient,
} from "./operations/rate-limit-store.js";
export {
  Uri,
  Get,
  Post,
  Put,
  Patch,
  Delete,
  AuthorizationType,
  Area,
  HttpAuthorizationType,
  type HttpRouteMethod,
  type HttpRouteOptions,
  type HttpMethodDecorator,
  type HttpClassDecorator,
  type HttpClassOrMethodDecorator,
} from "./routing/route-decorators.js";
export { HttpRouter, type HttpRouteMatch, type HttpRouterMethod } from "./routing/http-router.js";
// Every type of openapi-types.ts is public: the OpenAPI document, its options and the route descriptions.
export type * from "./openapi/openapi-types.js";
export { OpenApi, type HttpOperationOptions, type HttpBodyDescription, type HttpBodyClass } from "./openapi/operation-decorator.js";
export { HttpAuthentication, type HttpAuthenticationClass } from "./auth/http-authentication.js";
export { BasicAuthentication } from "./auth/basic-authentication.js";
export { BearerAuthentication } from "./auth/bearer-authentication.js";
export { JwtKeyring, type JwtPayload, type JwtAlgorithm, type JwtSignOptions } from "./auth/jwt-keyring.js";
export { constantTimeEquals } from "./auth/constant-time.js";
export { HttpLogger, type HttpLoggerOptions, type LoggedRequest, type LoggedResponse, type LoggedUser } from "./logging/http-logger.js";
export { HttpLogParameters, type HttpLogParameterOptions } from "./logging/http-log-parameters.js";
export { HttpLogWriter, type HttpLogWriterClass } from "./logging/http-log-writer.js";
export { HttpLogRedactedNames } from "./logging/http-log-redacted-names.js";
export { HttpLogAction, HttpLogDiscarded, HttpLogError, HttpLogRequest, HttpLogResponse } from "./logging/http-log-records.js";
export type {
  HttpLogNameValues,
  HttpLogNameValueJson,
  HttpLogSlowRequest,
  HttpLogStatement,
  HttpLogUser,
} from "./logging/http-log-records.js";
export { JsonLinesLogWriter, type JsonLinesLogKind } from "./logging/json-lines-log-writer.js";
export { HttpContext } from "./crud/http-context.js";
export {
  HttpEntityReader,
  type HttpConditionalExchange,
  type HttpEntityPage,
  type HttpSelectPage,
  type HttpAggregatePage,
} from "./crud/http-entity-reader.js";
export {
  HttpEntityWriter,
  type HttpEntityWriterEvent,
  type HttpEntityDeleted,
  type HttpEntityBulkResult,
} from "./crud/http-entity-writer.js";
export { HttpEntityController, HttpEntityReadController } from "./crud/http-entity-controller.js";
export { type ChangeStreamSettings, defaultChangeStreamSettings } from "./crud/change-stream.js";
export { HttpChangesController } from "./crud/http-changes-controller.js";
export { DatabaseReadiness } from "./crud/database-readiness.js";
export { DatabasePoolFigures } from "./crud/database-pool-figures.js";
export { HttpIdempotencyKey, purgeIdempotencyKeys } from "./crud/idempotency.js";
export { HttpFilterParameters } from "./crud/http-filter-parameters.js";
export { parseFilterBody, parseSelectBody, type FilterColumns, type FilterValueReader, type SelectBody } from "./crud/http-filter-body.js";
export { parseAggregateBody } from "./crud/aggregate-body.js";
