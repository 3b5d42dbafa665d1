import type { HttpAuthenticationClass } from "../auth/http-authentication.js";
import type { HttpControllerClass } from "../exchange/http-controller.js";
import {
  HttpClientGoneError,
  HttpError,
  HttpForbiddenError,
  HttpMethodNotAllowedError,
  HttpUnauthorizedError,
} from "../exchange/http-errors.js";
import type { HttpRequest } from "../exchange/http-request.js";
import type { HttpResponse } from "../exchange/http-response.js";
import { HttpStatus, HttpMessages } from "../exchange/http-messages.js";
import type { RateLimiter } from "../operations/rate-limiter.js";
import type { HttpRouteMatch, HttpRouter } from "../routing/http-router.js";
import type { ResultJson } from "./result-json.js";
import { int32Args, isThenable, rawPathOf, serializeResult } from "./pipeline-steps.js";

/** What the router holds for one route. @internal */
export interface RouteTarget<C> {
  readonly controller: HttpControllerClass<C>;
  readonly methodName: string;
  /** The method, resolved once at start-up rather than looked up by name on every request. */
  readonly handler: (...args: unknown[]) => unknown;
  readonly params: "int32" | "string";
  readonly areas: readonly string[];
  readonly requiresAuthentication: boolean;
  /** `GET /api/x/? (Controller.method)`, for messages. */
  readonly description: string;
  /** The route template, `/api/x/?`: the route label of metrics and traces. */
  readonly route: string;
  /** The media types whose bodies the route reads as a stream (`HttpRouteOptions.streamedBody`); undefined when none. */
  readonly streamedBody: ReadonlySet<string> | undefined;
  /** Writes the JSON of the handler's synchronous results (the text of a repeated answer made once). */
  readonly resultJson: ResultJson;
}

/** The settings the dispatch reads, frozen at `start()`. @internal */
export interface DispatchSettings<C> {
  readonly router: HttpRouter<RouteTarget<C>>;
  readonly authentication: HttpAuthenticationClass<C> | undefined;
  /** Authenticate requests that match no route (so 401 comes before 404 and 405). */
  readonly authenticateUnknown: boolean;
  /** The rate limits; undefined when there are none. */
  readonly rateLimiter: RateLimiter | undefined;
}

const routedMethods: ReadonlySet<string> = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]);

/**
 * The middle of the request pipeline (ARCHITECTURE.md): resolves a request's route, applies the rate limits,
 * authenticates, checks the areas and calls the handler, or refuses the request with 401, 403, 404, 405 or 429.
 * A handler reached after a wait (authentication, a shared rate-limit store) runs only if its client is still
 * connected: otherwise `HttpClientGoneError`, and nothing is done for a client that has given up.
 * @internal
 */
export class RequestDispatcher<C> {
  readonly #settings: DispatchSettings<C>;

  constructor(settings: DispatchSettings<C>) {
    this.#settings = settings;
  }

  /**
   * Resolves, authenticates and invokes. Answers undefined when the handler returned synchronously (its
   * value already serialized), a promise of the value still to serialize, or the 404 or 405 of a request no route
   * answers, as an `HttpError` to answer: returned rather than thrown where nothing was awaited, since a throw
   * costs V8 the message of an exception (the source position of the throw, some 14k instructions a 404).
   */
  dispatch(request: HttpRequest, response: HttpResponse, context: C): void | Promise<unknown> | HttpError {
    const settings = this.#settings;
    const path = rawPathOf(request.uri);
    // HEAD runs the GET route itself (node:http leaves the body out), so the two can never diverge.
    const method = request.method;
    const match = settings.router.resolve(method === "HEAD" ? "GET" : method, path);
    if (request.observation !== undefined && match !== undefined) request.observation.route = match.target.route;
    if (settings.rateLimiter !== undefined) return this.#dispatchLimited(settings.rateLimiter, match, request, response, context, path);
    if (match === undefined) {
      if (settings.authenticateUnknown)
        return this.#authenticate(request, response, context).then(() => {
          throw this.#refusalOf(request, path);
        });
      return this.#refusalOf(request, path);
    }
    if (match.target.requiresAuthentication) {
      return this.#authenticate(request, response, context).then(() =>
        this.#invokeAfterWait(match, request, response, context, HttpMessages.clientGoneDuringAuthentication),
      );
    }
    return this.#invoke(match, request, response, context);
  }

  /**
   * `dispatch` with rate limits: those by address before authentication (and before 404, so that probing
   * unknown addresses is limited too), those by user after it. Synchronous while the store is.
   */
  #dispatchLimited(
    limiter: RateLimiter,
    match: HttpRouteMatch<RouteTarget<C>> | undefined,
    request: HttpRequest,
    response: HttpResponse,
    context: C,
    path: string,
  ): void | Promise<unknown> {
    const route = match === undefined ? "" : `${request.method === "HEAD" ? "GET" : request.method} ${match.target.route}`;
    // `waited`: what the request waited for so far (the text logged if its client left meanwhile), or undefined.
    const afterAuthentication = (waited: string | undefined): void | Promise<unknown> => {
      if (match === undefined) throw this.#refusalOf(request, path);
      const limited = limiter.afterAuthentication(request, response, route);
      if (limited === undefined) {
        return waited === undefined
          ? this.#invoke(match, request, response, context)
          : this.#invokeAfterWait(match, request, response, context, waited);
      }
      return limited.then(() => this.#invokeAfterWait(match, request, response, context, HttpMessages.clientGoneDuringRateLimit));
    };
    const authenticated = (waited: string | undefined): void | Promise<unknown> => {
      const authenticate = match === undefined ? this.#settings.authenticateUnknown : match.target.requiresAuthentication;
      if (!authenticate) return afterAuthentication(waited);
      return this.#authenticate(request, response, context).then(() => afterAuthentication(HttpMessages.clientGoneDuringAuthentication));
    };
    const limited = limiter.beforeAuthentication(request, response, route);
    return limited === undefined ? authenticated(undefined) : limited.then(() => authenticated(HttpMessages.clientGoneDuringRateLimit));
  }

  /** `#invoke` for a request that waited: refused with `HttpClientGoneError` when its client has left meanwhile. */
  #invokeAfterWait(
    match: HttpRouteMatch<RouteTarget<C>>,
    request: HttpRequest,
    response: HttpResponse,
    context: C,
    waited: string,
  ): void | Promise<unknown> {
    if (request.clientGone) throw new HttpClientGoneError(waited);
    return this.#invoke(match, request, response, context);
  }

  /** The 405 or 404 of a request that no route answers. */
  #refusalOf(request: HttpRequest, path: string): HttpError {
    if (request.method === "CONNECT") return new HttpError(HttpStatus.methodNotAllowed, HttpMessages.connectNotAllowed);
    if (!routedMethods.has(request.method)) return new HttpMethodNotAllowedError(request.method, request.path, []);
    const allow = this.#settings.router.allowedMethods(path);
    if (allow.length > 0) return new HttpMethodNotAllowedError(request.method, request.path, allow);
    return new HttpError(HttpStatus.notFound, HttpMessages.commandNotFound(request.path));
  }

  /** Checks the areas, converts the arguments and runs the handler; a synchronous result is serialized here. */
  #invoke(match: HttpRouteMatch<RouteTarget<C>>, request: HttpRequest, response: HttpResponse, context: C): void | Promise<unknown> {
    const target = match.target;
    const areas = target.areas;
    for (let i = 0; i < areas.length; i++) {
      if (request.user?.hasArea(areas[i]) !== true) throw new HttpForbiddenError(HttpMessages.areaRequired(areas[i], target.description));
    }
    const args = target.params === "string" || match.args.length === 0 ? match.args : int32Args(match.args, request);
    const controller = new target.controller(context, request, response);
    const handler = target.handler;
    const result =
      args.length === 0
        ? handler.call(controller)
        : args.length === 1
          ? handler.call(controller, args[0])
          : handler.apply(controller, args as unknown[]);
    if (result instanceof Promise) return result;
    if (isThenable(result)) return Promise.resolve(result);
    serializeResult(response, result, target.resultJson);
  }

  async #authenticate(request: HttpRequest, response: HttpResponse, context: C): Promise<void> {
    const authenticationClass = this.#settings.authentication;
    if (authenticationClass === undefined) throw new HttpUnauthorizedError();
    const authentication = new authenticationClass(context);
    await authentication.check(request, response);
    if (request.user === undefined) throw new HttpUnauthorizedError(authentication.challenge);
  }
}
