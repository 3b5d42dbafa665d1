import type { HttpAuthenticationClass } from "../auth/http-authentication.js";
import { type BalancerState, balancerController } from "../balancer/balancer-routes.js";
import type { HttpControllerClass } from "../exchange/http-controller.js";
import { HttpServerError } from "../exchange/http-errors.js";
import { HttpMessages } from "../exchange/http-messages.js";
import type { DocumentedRoute } from "../openapi/openapi-builder.js";
import { OperationsMessages } from "../operations/operations-messages.js";
import type { HttpRateLimit } from "../operations/rate-limiter.js";
import type { RouteTarget } from "./request-dispatch.js";
import { ResultJson } from "./result-json.js";
import { type ControllerRoute, controllerRoutesOf, controllerUriOf, routeHandlerOf } from "../routing/controller-routes.js";
import { HttpRouter } from "../routing/http-router.js";
import { joinPath } from "../routing/join-path.js";
import { HttpAuthorizationType } from "../routing/route-decorators.js";

/** What the server's settings decide about every route: where it lives and who may call it. @internal */
export interface RouteRules<C> {
  readonly baseUri: string;
  readonly authentication: HttpAuthenticationClass<C> | undefined;
  readonly allowAnonymous: boolean;
}

/** One route with its full pattern and what the router holds for it. @internal */
export interface ResolvedRoute<C> {
  readonly controller: HttpControllerClass<C>;
  readonly methodName: string;
  readonly verb: ControllerRoute["verb"];
  readonly pattern: string;
  readonly target: RouteTarget<C>;
}

interface Registration<C> {
  readonly controller: HttpControllerClass<C>;
  readonly uri: string;
}

/**
 * The controllers registered with a server, and the routes they make: the router the running server
 * resolves with, the rate limits' routes checked against them, and the routes the OpenAPI document lists.
 * @internal
 */
export class ServerRoutes<C> {
  readonly #registrations: Registration<C>[] = [];
  readonly #registered = new Set<HttpControllerClass<C>>();

  /** Registers a controller at `uri`, or at its `@Uri`; refuses a second registration and ill-shaped routes. */
  register(controller: HttpControllerClass<C>, uri: string | undefined): void {
    if (this.#registered.has(controller)) {
      throw new HttpServerError(HttpMessages.controllerAlreadyRegistered(controller.name));
    }
    const path = uri ?? controllerUriOf(controller);
    if (path === undefined) throw new HttpServerError(HttpMessages.controllerWithoutUri(controller.name));
    const routes = controllerRoutesOf(controller);
    if (routes.length === 0) throw new HttpServerError(HttpMessages.controllerWithoutRoutes(controller.name));
    const probe = new HttpRouter<string>();
    for (const route of routes)
      probe.add(route.verb.method, joinPath(path, route.verb.path), `${controller.name}.${route.methodName}`, (name) => name);
    this.#registrations.push({ controller, uri: path });
    this.#registered.add(controller);
  }

  /** The router of every route (the balancer's too, when given). */
  router(rules: RouteRules<C>, balancer: BalancerState | undefined): HttpRouter<RouteTarget<C>> {
    const router = new HttpRouter<RouteTarget<C>>();
    for (const { verb, pattern, target } of this.resolved(rules, balancer)) {
      router.add(verb.method, pattern, target, (existing) => existing.description);
    }
    return router;
  }

  /** The media types some route reads as a stream (`HttpRouteOptions.streamedBody`): empty when none does. */
  streamedMediaTypes(rules: RouteRules<C>, balancer: BalancerState | undefined): ReadonlySet<string> {
    const types = new Set<string>();
    for (const { target } of this.resolved(rules, balancer)) for (const type of target.streamedBody ?? []) types.add(type);
    return types;
  }

  /** Refuses a rate limit whose route is not registered (a typo would silently limit nothing). */
  checkRateLimitRoutes(rules: RouteRules<C>, balancer: BalancerState | undefined, rateLimits: readonly HttpRateLimit[]): void {
    const routes = new Set<string>();
    for (const { verb, pattern } of this.resolved(rules, balancer)) routes.add(`${verb.method} ${pattern}`);
    for (const limit of rateLimits) {
      if (limit.route !== undefined && !routes.has(limit.route))
        throw new HttpServerError(OperationsMessages.unknownRateLimitRoute(limit.route));
    }
  }

  /** Every route as the OpenAPI document describes it. */
  documented(rules: RouteRules<C>, balancer: BalancerState | undefined, rateLimits: readonly HttpRateLimit[]): DocumentedRoute[] {
    const routes: DocumentedRoute[] = [];
    for (const resolved of this.resolved(rules, balancer)) {
      routes.push({
        ...resolved,
        method: resolved.verb.method,
        params: resolved.target.params,
        areas: resolved.target.areas,
        requiresAuthentication: resolved.target.requiresAuthentication,
        rateLimited: rateLimits.some((limit) => limit.route === undefined || limit.route === `${resolved.verb.method} ${resolved.pattern}`),
      });
    }
    return routes;
  }

  /** Every route with its full pattern and target, checked against the authentication rules (an area needs an authentication class and authentication). */
  *resolved(rules: RouteRules<C>, balancer: BalancerState | undefined): Generator<ResolvedRoute<C>> {
    const registrations =
      balancer === undefined ? this.#registrations : [...this.#registrations, { controller: balancerController<C>(balancer), uri: "/" }];
    for (const { controller, uri } of registrations) {
      for (const route of controllerRoutesOf(controller)) {
        const pattern = joinPath(rules.baseUri, joinPath(uri, route.verb.path));
        const description = `${route.verb.method} ${pattern} (${controller.name}.${route.methodName})`;
        const explicitNone = route.authorization === HttpAuthorizationType.None;
        if (route.areas.length > 0) {
          if (rules.authentication === undefined) throw new HttpServerError(HttpMessages.areaWithoutAuthentication(description));
          if (explicitNone) throw new HttpServerError(HttpMessages.areaWithAnonymousRoute(description));
        }
        const requiresAuthentication =
          route.authorization === undefined
            ? route.areas.length > 0 || !rules.allowAnonymous
            : route.authorization === HttpAuthorizationType.Authentication;
        const target: RouteTarget<C> = {
          controller,
          methodName: route.methodName,
          handler: routeHandlerOf(route.handler),
          params: pattern.endsWith("*") ? "string" : route.verb.params,
          areas: route.areas,
          requiresAuthentication,
          description,
          route: pattern,
          streamedBody: route.verb.streamedBody === undefined ? undefined : new Set(route.verb.streamedBody),
          resultJson: new ResultJson(),
        };
        yield { controller, methodName: route.methodName, verb: route.verb, pattern, target };
      }
    }
  }
}
