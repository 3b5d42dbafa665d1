import { randomBytes } from "node:crypto";
import {
  ConcurrentUpdateError,
  EntityNotFoundError,
  InvalidInputError,
  RelationConstraintError,
  TransientDatabaseError,
  UniqueViolationError,
  ValidationError,
  type ValidationFailure,
} from "../errors.js";
import { HttpError, HttpForbiddenError, HttpMethodNotAllowedError, HttpNotReadyError, HttpUnauthorizedError } from "./http-errors.js";
import { HttpDefaults, HttpStatus, HttpMessages } from "./http-messages.js";

/** What an error is answered with (API.md "Error bodies"). @internal */
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

function clientError(
  status: number,
  message: string,
  headers: readonly (readonly [string, string])[] = [],
  errors?: readonly ValidationFailure[],
): ErrorAnswer {
  const body =
    errors === undefined
      ? JSON.stringify({ status, message })
      : JSON.stringify({
          status,
          message,
          errors: errors.map(({ property, column, message: text }) => ({ property, column, message: text })),
        });
  return { status, body, headers, taskId: "" };
}

/** The constant body of a 503 for a transient database failure (API.md). */
const serviceUnavailableBody = JSON.stringify({ status: HttpStatus.serviceUnavailable, message: HttpMessages.serviceUnavailable });
const retryAfter: readonly (readonly [string, string])[] = [["Retry-After", String(HttpDefaults.retryAfterSeconds)]];

/**
 * Maps what a request raised to its answer: the HTTP errors to their status, the ORM's errors to 404, 409
 * (a stale version, a delete that a relation refuses, a duplicate key),
 * 422 and 400, a transient database failure to 503 with `Retry-After`, anything else to 500. A status >= 500
 * gets a constant body (with a task id for the 500s), and its task id goes to the log with the cause.
 * @internal
 */
export function errorAnswerOf(error: unknown, path: string): ErrorAnswer {
  let status: number = HttpStatus.internalServerError;
  if (error instanceof HttpUnauthorizedError) {
    return clientError(HttpStatus.unauthorized, HttpMessages.unauthorized(path), [["WWW-Authenticate", error.challenge]]);
  } else if (error instanceof HttpForbiddenError) {
    return clientError(HttpStatus.forbidden, HttpMessages.forbidden(path));
  } else if (error instanceof HttpMethodNotAllowedError) {
    return clientError(error.status, error.message, error.allow.length > 0 ? [["Allow", error.allow.join(", ")]] : []);
  } else if (error instanceof HttpNotReadyError) {
    // A fixed text of the server's own, so shown; the task id still ties the answer to the cause in the log.
    const taskId = newTaskId();
    const body = JSON.stringify({ status: error.status, message: error.message });
    return { status: error.status, body, headers: [["Retry-After", String(HttpDefaults.notReadyRetryAfterSeconds)]], taskId };
  } else if (error instanceof HttpError) {
    status = Number.isInteger(error.status) && error.status >= 400 && error.status <= 599 ? error.status : HttpStatus.internalServerError;
    if (status < 500) return clientError(status, error.message);
  } else if (error instanceof EntityNotFoundError) {
    return clientError(HttpStatus.notFound, error.message);
  } else if (error instanceof ConcurrentUpdateError || error instanceof RelationConstraintError) {
    return clientError(HttpStatus.conflict, error.message);
  } else if (error instanceof UniqueViolationError) {
    // A duplicate is the client's conflict, never a 500; the engine's text (index and value) is not shown.
    return clientError(HttpStatus.conflict, HttpMessages.uniqueValueTaken);
  } else if (error instanceof ValidationError) {
    return clientError(HttpStatus.unprocessableEntity, error.message, [], error.errors);
  } else if (error instanceof InvalidInputError) {
    return clientError(HttpStatus.badRequest, error.message);
  } else if (error instanceof TransientDatabaseError) {
    return { status: HttpStatus.serviceUnavailable, body: serviceUnavailableBody, headers: retryAfter, taskId: newTaskId() };
  }
  const taskId = newTaskId();
  return { status, body: serverErrorBody(status, taskId), headers: [], taskId };
}
