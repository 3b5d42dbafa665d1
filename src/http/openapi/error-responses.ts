import { HttpStatus } from "../http-messages.js";
import { OpenApiMessages } from "./openapi-messages.js";
import type { JsonSchema } from "./openapi-types.js";

/** What decides which standard answers a route can give. @internal */
export interface RouteFacts {
  readonly method: string;
  readonly placeholders: number;
  readonly requiresAuthentication: boolean;
  readonly areas: readonly string[];
}

/** One standard answer: its status, text, body schema and headers, and the routes that can give it. @internal */
export interface ErrorResponse {
  readonly status: number;
  readonly description: string;
  readonly body: "error" | "validation" | "serverError";
  readonly headers: readonly { readonly name: string; readonly description: string }[];
  readonly appliesTo: (route: RouteFacts) => boolean;
}

const always = (): boolean => true;
const withBody = (route: RouteFacts): boolean => route.method === "POST" || route.method === "PUT";
const writes = (route: RouteFacts): boolean => route.method !== "GET";

type ErrorStatusName = Exclude<keyof typeof HttpStatus, "ok">;

/**
 * Every error status the server answers by itself (`HttpStatus`), with its body and headers. The record is
 * keyed by `HttpStatus`'s names, so a status added there fails to compile until it is described here, and
 * then appears in every document by itself.
 * @internal
 */
export const errorResponses: Readonly<Record<ErrorStatusName, Omit<ErrorResponse, "status">>> = {
  badRequest: { description: OpenApiMessages.badRequest, body: "error", headers: [], appliesTo: always },
  unauthorized: {
    description: OpenApiMessages.unauthorized,
    body: "error",
    headers: [{ name: "WWW-Authenticate", description: OpenApiMessages.wwwAuthenticate }],
    appliesTo: (route) => route.requiresAuthentication,
  },
  forbidden: { description: OpenApiMessages.forbidden, body: "error", headers: [], appliesTo: (route) => route.areas.length > 0 },
  notFound: {
    description: OpenApiMessages.notFound,
    body: "error",
    headers: [],
    appliesTo: (route) => route.placeholders > 0 || route.method === "PUT",
  },
  methodNotAllowed: {
    description: OpenApiMessages.methodNotAllowed,
    body: "error",
    headers: [{ name: "Allow", description: OpenApiMessages.allow }],
    appliesTo: always,
  },
  conflict: { description: OpenApiMessages.conflict, body: "error", headers: [], appliesTo: writes },
  requestTimeout: { description: OpenApiMessages.requestTimeout, body: "error", headers: [], appliesTo: always },
  payloadTooLarge: { description: OpenApiMessages.payloadTooLarge, body: "error", headers: [], appliesTo: withBody },
  expectationFailed: { description: OpenApiMessages.expectationFailed, body: "error", headers: [], appliesTo: withBody },
  unprocessableEntity: { description: OpenApiMessages.unprocessableEntity, body: "validation", headers: [], appliesTo: withBody },
  headersTooLarge: { description: OpenApiMessages.headersTooLarge, body: "error", headers: [], appliesTo: always },
  internalServerError: { description: OpenApiMessages.internalServerError, body: "serverError", headers: [], appliesTo: always },
  serviceUnavailable: {
    description: OpenApiMessages.serviceUnavailable,
    body: "error",
    headers: [{ name: "Retry-After", description: OpenApiMessages.retryAfter }],
    appliesTo: always,
  },
};

/** The catalogue as a list ordered by status. @internal */
export function errorResponseList(): ErrorResponse[] {
  return (Object.keys(errorResponses) as ErrorStatusName[])
    .map((name) => ({ status: HttpStatus[name], ...errorResponses[name] }))
    .sort((a, b) => a.status - b.status);
}

/** The component name of a standard answer (`Error409`). @internal */
export function errorResponseName(status: number): string {
  return `Error${status}`;
}

const errorProperties = { status: { type: "integer", format: "int32" }, message: { type: "string" } } as const;

/** The schemas of the error bodies (API.md "Error bodies"). @internal */
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

/** The schema component name of a body kind. @internal */
export function errorBodyName(body: ErrorResponse["body"]): string {
  return body === "error" ? "Error" : body === "validation" ? "ValidationError" : "ServerError";
}
