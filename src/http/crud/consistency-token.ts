import { InvalidInputError } from "../../errors.js";
import type { Context } from "../../session/context.js";
import type { HttpRequest } from "../exchange/http-request.js";
import type { HttpResponse } from "../exchange/http-response.js";
import { CrudMessages } from "./crud-messages.js";

/**
 * The header of a consistency token: answered after a write, sent back by a client that wants its later reads
 * to be at least that new (docs/scaling.md, "Read replicas"). Exposed to cross-origin scripts by CORS.
 */
export const consistencyTokenHeader = "X-Consistency-Token";

/**
 * Prepares a session's reads for a request, on a database with read replicas: the request's
 * `X-Consistency-Token` (a token that is not one of this database's engine is a 400), and the route's own
 * choice of replica reads (undefined: the session's or database's). Call it before the first read.
 */
export function readConsistently(request: HttpRequest, context: Context, replicaReads: boolean | undefined): void {
  const token = request.header(consistencyTokenHeader);
  if (token !== undefined && !context.consistentWith(token)) throw new InvalidInputError(CrudMessages.invalidConsistencyToken);
  if (replicaReads !== undefined) context.replicaReads = replicaReads;
}

/**
 * Waits for a write's answer, then sets the session's consistency token on the response (when the database has
 * read replicas and the token could be read), and answers what the write answered.
 */
export async function withConsistencyToken<R>(answer: Promise<R>, context: Context, response: HttpResponse): Promise<R> {
  const result = await answer;
  const token = await context.consistencyToken();
  if (token !== undefined) response.setHeader(consistencyTokenHeader, token);
  return result;
}
