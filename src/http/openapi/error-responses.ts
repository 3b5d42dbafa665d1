import type { HttpAnswerBody, HttpAnswerHeader, HttpStatusName } from "../exchange/http-status-catalogue.js";
import { OpenApiMessages } from "./openapi-messages.js";
import type { JsonSchema } from "./openapi-types.js";

/**
 * The description of every status of the server's catalogue (`HttpStatusCatalogue`), keyed by the same
 * names: a status added to `HttpStatus` does not compile until it is described here.
 * @internal
 */
export const statusDescriptions: Readonly<Record<HttpStatusName, string>> = {
  ok: OpenApiMessages.success,
  created: OpenApiMessages.created,
  notModified: OpenApiMessages.notModified,
  badRequest: OpenApiMessages.badRequest,
  unauthorized: OpenApiMessages.unauthorized,
  forbidden: OpenApiMessages.forbidden,
  notFound: OpenApiMessages.notFound,
  methodNotAllowed: OpenApiMessages.methodNotAllowed,
  conflict: OpenApiMessages.conflict,
  requestTimeout: OpenApiMessages.requestTimeout,
  gone: OpenApiMessages.gone,
  preconditionFailed: OpenApiMessages.preconditionFailed,
  payloadTooLarge: OpenApiMessages.payloadTooLarge,
  expectationFailed: OpenApiMessages.expectationFailed,
  unprocessableEntity: OpenApiMessages.unprocessableEntity,
  preconditionRequired: OpenApiMessages.preconditionRequired,
  tooManyRequests: OpenApiMessages.tooManyRequests,
  headersTooLarge: OpenApiMessages.headersTooLarge,
  internalServerError: OpenApiMessages.internalServerError,
  serviceUnavailable: OpenApiMessages.serviceUnavailable,
};

/** The description of every header an answer of the catalogue carries. @internal */
export const headerDescriptions: Readonly<Record<HttpAnswerHeader, string>> = {
  "WWW-Authenticate": OpenApiMessages.wwwAuthenticate,
  Allow: OpenApiMessages.allow,
  "Retry-After": OpenApiMessages.retryAfter,
  ETag: OpenApiMessages.etag,
  RateLimit: OpenApiMessages.rateLimit,
  "RateLimit-Policy": OpenApiMessages.rateLimitPolicy,
};

/** The component name of a standard answer (`Error409`, `NotModified304`). @internal */
export function errorResponseName(status: number): string {
  return status < 400 ? `Answer${status}` : `Error${status}`;
}

/**
 * The members of every error body; `operation` and `index` name the failed item of a bulk request, `lines` the
 * refused lines of an NDJSON import.
 */
const errorProperties = {
  status: { type: "integer", format: "int32" },
  message: { type: "string" },
  operation: { type: "string", enum: ["insert", "update", "delete"] },
  index: { type: "integer", minimum: 0 },
  lines: {
    type: "array",
    items: {
      type: "object",
      required: ["line", "message"],
      properties: { line: { type: "integer", minimum: 1 }, member: { type: "string" }, message: { type: "string" } },
    },
  },
} as const;

/** The schemas of the error bodies (`{status, message}`, 422 adds `errors`, 5xx adds `taskId`). @internal */
export const errorBodySchemas: Readonly<Record<string, JsonSchema>> = {
  Error: { type: "object", required: ["status", "message"], properties: errorProperties },
  ValidationError: {
    type: "object",
    required: ["status", "message", "errors"],
    properties: {
      ...errorProperties,
      errors: {
        type: "array",
        items: {
          type: "object",
          required: ["property", "message"],
          properties: { property: { type: "string" }, column: { type: "string" }, message: { type: "string" } },
        },
      },
    },
  },
  ServerError: {
    type: "object",
    required: ["status", "message", "taskId"],
    properties: { ...errorProperties, taskId: { type: "string", pattern: "^[0-9a-f]{32}$" } },
  },
};

/** The schema component name of an error body kind. @internal */
export function errorBodyName(body: Exclude<HttpAnswerBody, "route" | "none">): string {
  return body === "error" ? "Error" : body === "validation" ? "ValidationError" : "ServerError";
}
