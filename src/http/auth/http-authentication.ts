import type { HttpRequest } from "../exchange/http-request.js";
import type { HttpResponse } from "../exchange/http-response.js";

/**
 * The application's authentication, run after the route is resolved and before the areas and the handler. The server builds one instance per request that needs
 * authentication, with that request's context, and calls `check`. `check` fills `request.user` (with its
 * areas) or throws `HttpUnauthorizedError` (401) or `HttpForbiddenError` (403). A `check` that returns
 * without a user is answered 401 with `challenge`.
 */
export abstract class HttpAuthentication<C> {
  /** The per-request context. */
  protected readonly context: C;

  /** @param context the per-request context (borrowed, not owned). */
  constructor(context: C) {
    this.context = context;
  }

  /** The `WWW-Authenticate` value of a 401 raised because `check` set no user. */
  get challenge(): string {
    return "Bearer";
  }

  /** Decides who the caller is and fills `request.user`, or throws. */
  abstract check(request: HttpRequest, response: HttpResponse): void | Promise<void>;
}

/** An authentication class for context type C. */
export type HttpAuthenticationClass<C> = new (context: C) => HttpAuthentication<C>;
