import { randomBytes } from "node:crypto";
import {
  ConcurrentUpdateError,
  EntityNotFoundError,
  InvalidInputError,
  RelationConstraintError,
  TenantRequiredError,
  PolicyCallerRequiredError,
  PolicyRefusedError,
  TransientDatabaseError,
  UniqueViolationError,
  ValidationError,
  type ValidationFailure,
} from "../../errors.js";
import {
  HttpBulkItemError,
  HttpError,
  type HttpImportLineError,
  HttpImportRefusedError,
  HttpForbiddenError,
  HttpMethodNotAllowedError,
  HttpNotReadyError,
  HttpServiceUnavailableError,
  HttpUnauthorizedError,
} from "../exchange/http-errors.js";
import { HttpDefaults, HttpMessages } from "../exchange/http-messages.js";
import { type HttpAnswerHeader, HttpStatusCatalogue, type HttpStatusEntry, httpStatusEntryOf } from "../exchange/http-status-catalogue.js";
import { HttpTooManyRequestsError } from "../operations/rate-limiter.js";

/** What an error is answered with (the error bodies: docs/http.md). @internal */
export interface ErrorAnswer {
  readonly status: number;
  /** The JSON body. */
  readonly body: string;
  /** Extra headers (`WWW-Authenticate`, `Allow`). */
  readonly headers: readonly (readonly [string, string])[];
  /** The task id of a 5xx answer ('' below 500). */
  readonly taskId: string;
}

/** A fresh task id: 32 lower-case hex digits. @internal */
export function newTaskId(): string {
  return randomBytes(16).toString("hex");
}

/** The constant body of every answer with status >= 500. @internal */
export function serverErrorBody(status: number, taskId: string): string {
  return JSON.stringify({ status, message: HttpMessages.internalServerError, taskId });
}

/**
 * The answer of a catalogue entry: its status, the `{status, message}` body (with `errors` for a validation
 * body) and the values of the headers the entry carries. Every answer below 500 is built here, so it can
 * only be one the OpenAPI document describes.
 */
function clientError(
  entry: HttpStatusEntry,
  message: string,
  headerValues: Partial<Record<HttpAnswerHeader, string>> = {},
  errors?: readonly ValidationFailure[],
): ErrorAnswer {
  const status = entry.status;
  const body =
    entry.body === "validation"
      ? JSON.stringify({
          status,
          message,
          errors: (errors ?? []).map(({ property, column, message: text }) => ({ property, column, message: text })),
        })
      : JSON.stringify({ status, message });
  const headers: (readonly [string, string])[] = [];
  for (const name of entry.headers) {
    const value = headerValues[name];
    if (value !== undefined) headers.push([name, value]);
  }
  return { status, body, headers, taskId: "" };
}

const { serviceUnavailable, internalServerError } = HttpStatusCatalogue;
/** The constant body of a 503 for a transient database failure: it says nothing of the cause. */
const serviceUnavailableBody = JSON.stringify({ status: serviceUnavailable.status, message: HttpMessages.serviceUnavailable });
const retryAfter: readonly (readonly [string, string])[] = serviceUnavailable.headers.map((name) => [
  name,
  String(HttpDefaults.retryAfterSeconds),
]);

/**
 * Maps what a request raised to its answer: the HTTP errors to their status, the ORM's errors to 404, 409
 * (a stale version, a delete that a relation refuses, a duplicate key),
 * 422 and 400, a transient database failure (or another service the request needs, such as the rate-limit
 * store) to 503 with `Retry-After`, anything else to 500. A status >= 500
 * gets a constant body (with a task id for the 500s), and its task id goes to the log with the cause.
 * @internal
 */
export function errorAnswerOf(error: unknown, path: string): ErrorAnswer {
  const catalogue = HttpStatusCatalogue;
  let status: number = internalServerError.status;
  if (error instanceof HttpBulkItemError) {
    // The item's own answer, with which item it was.
    const answer = errorAnswerOf(error.cause, path);
    if (answer.status >= 500) return answer;
    const body = { ...(JSON.parse(answer.body) as object), operation: error.operation, index: error.index };
    return { ...answer, body: JSON.stringify(body) };
  }
  if (error instanceof HttpImportRefusedError) return importRefusedAnswer(error, path);
  if (error instanceof HttpUnauthorizedError) {
    return clientError(catalogue.unauthorized, HttpMessages.unauthorized(path), { "WWW-Authenticate": error.challenge });
  } else if (
    error instanceof HttpForbiddenError ||
    error instanceof TenantRequiredError ||
    error instanceof PolicyCallerRequiredError ||
    error instanceof PolicyRefusedError
  ) {
    // A caller without a tenant may not reach an entity scoped by tenant, one without a caller no entity under a
    // policy, and a caller may not do what the policy does not grant it on a row it may read.
    return clientError(catalogue.forbidden, HttpMessages.forbidden(path));
  } else if (error instanceof HttpMethodNotAllowedError) {
    return clientError(catalogue.methodNotAllowed, error.message, error.allow.length > 0 ? { Allow: error.allow.join(", ") } : {});
  } else if (error instanceof HttpTooManyRequestsError) {
    return clientError(catalogue.tooManyRequests, error.message, error.headerValues);
  } else if (error instanceof HttpNotReadyError) {
    // A fixed text of the server's own, so shown; the task id still ties the answer to the cause in the log.
    const answer = clientError(serviceUnavailable, error.message, { "Retry-After": String(HttpDefaults.notReadyRetryAfterSeconds) });
    return { ...answer, taskId: newTaskId() };
  } else if (error instanceof HttpServiceUnavailableError) {
    return { status: serviceUnavailable.status, body: serviceUnavailableBody, headers: retryAfter, taskId: newTaskId() };
  } else if (error instanceof HttpError) {
    status = Number.isInteger(error.status) && error.status >= 400 && error.status <= 599 ? error.status : internalServerError.status;
    if (status < 500) {
      // A status of the catalogue gets its body (`errors: []` for a 422); any other 4xx a handler chose, the plain one.
      return clientError(httpStatusEntryOf(status) ?? { status, body: "error", headers: [], appliesTo: () => false }, error.message);
    }
  } else if (error instanceof EntityNotFoundError) {
    return clientError(catalogue.notFound, error.message);
  } else if (error instanceof ConcurrentUpdateError || error instanceof RelationConstraintError) {
    return clientError(catalogue.conflict, error.message);
  } else if (error instanceof UniqueViolationError) {
    // A duplicate is the client's conflict, never a 500; the engine's text (index and value) is not shown.
    return clientError(catalogue.conflict, HttpMessages.uniqueValueTaken);
  } else if (error instanceof ValidationError) {
    return clientError(catalogue.unprocessableEntity, error.message, {}, error.errors);
  } else if (error instanceof InvalidInputError) {
    return clientError(catalogue.badRequest, error.message);
  } else if (error instanceof TransientDatabaseError) {
    return { status: serviceUnavailable.status, body: serviceUnavailableBody, headers: retryAfter, taskId: newTaskId() };
  }
  const taskId = newTaskId();
  return { status, body: serverErrorBody(status, taskId), headers: [], taskId };
}

/**
 * The answer of an import that wrote nothing: each refused line's cause answered as its own write would be, its
 * message (and member) listed under `lines`, with the status of the first; a cause answered 5xx is the answer.
 */
function importRefusedAnswer(error: HttpImportRefusedError, path: string): ErrorAnswer {
  const lines: HttpImportLineError[] = [];
  const failures: { property: string; column: string; message: string }[] = [];
  let first: ErrorAnswer | undefined;
  for (const { line, cause } of error.refused) {
    const answer = errorAnswerOf(cause, path);
    if (answer.status >= 500) return answer;
    first ??= answer;
    if (cause instanceof ValidationError) {
      for (const { property, column, message } of cause.errors) {
        lines.push({ line, member: property, message });
        failures.push({ property, column, message });
      }
      continue;
    }
    const { message } = JSON.parse(answer.body) as { message: string };
    const member = cause instanceof InvalidInputError ? cause.property : undefined;
    lines.push(member === undefined ? { line, message } : { line, member, message });
  }
  const status = first?.status ?? HttpStatusCatalogue.badRequest.status;
  // A 422 carries `errors` as every 422 does: the validation failures of the refused lines.
  const body =
    status === HttpStatusCatalogue.unprocessableEntity.status
      ? { status, message: error.message, errors: failures, lines }
      : { status, message: error.message, lines };
  return { status, body: JSON.stringify(body), headers: [], taskId: "" };
}
