import { createServer, type Server, type ServerOptions } from "node:http";
import { contextFactory, type HttpContextSource } from "./context-source.js";

export type { HttpContextSource } from "./context-source.js";
import { closeServer, listen } from "./server-listen.js";
import { joinPath } from "./routing/join-path.js";
import { isIP } from "node:net";
import type { HttpAuthenticationClass } from "./auth/http-authentication.js";
import { type BalancerState, balancerController } from "./balancer/balancer-routes.js";
import type { HttpReadiness } from "./balancer/http-readiness.js";
import type { HttpControllerClass } from "./http-controller.js";
import { trustedProxyRule } from "./client-ip.js";
import { guardConnections } from "./connection-guard.js";
import { HttpCorsConfig } from "./http-cors-config.js";
import { HttpServerError } from "./http-errors.js";
import type { HttpRequest } from "./http-request.js";
import type { HttpResponse } from "./http-response.js";
import { HttpDefaults, HttpMessages } from "./http-messages.js";
import { HttpLogger, type HttpLogParameters, type HttpLogWriterClass } from "./logging/http-logger.js";
import { RequestPipeline, type RouteTarget } from "./request-pipeline.js";
import { type ControllerRoute, controllerRoutesOf, controllerUriOf } from "./routing/controller-routes.js";
import { HttpRouter } from "./routing/http-router.js";
import { HttpAuthorizationType } from "./routing/route-decorators.js";
import { runningServers } from "./logging/running-servers.js";
import { closeServers } from "./server-shutdown.js";
import { BasicAuthentication } from "./auth/basic-authentication.js";
import { buildOpenApiDocument, type DocumentedRoute } from "./openapi/openapi-builder.js";
import { openApiController } from "./openapi/openapi-controller.js";
import type { OpenApiDocument, OpenApiOptions } from "./openapi/openapi-types.js";
import { checkedMetricsOptions, type HttpMetricsOptions } from "./operations/http-metrics.js";
import { type OperationsObserver, startOperations } from "./operations/operations-observer.js";
import { checkedRateLimit, type HttpRateLimit, RateLimiter } from "./operations/rate-limiter.js";
import { type HttpRateLimitStore, MemoryRateLimitStore } from "./operations/rate-limit-store.js";
import { OperationsMessages } from "./operations/operations-messages.js";

interface Registration<C> {
  readonly controller: HttpControllerClass<C>;
  readonly uri: string;
}

/**
 * The HTTP server (SPEC.md 2.1, 3). Configure it, register controllers and an authentication class, then
 * `start()`. For every request other than a CORS preflight it builds a fresh context with
 * `new ContextClass()` (or the factory it was given), resolves the route, authenticates, checks areas and calls the handler; the context
 * is disposed (`Symbol.asyncDispose` or `Symbol.dispose`, when it has one) after the response is sent.
 * A context class with `attachRequest(request, response)` gets it called right after construction.
 *
 * Settings refuse changes while the server runs (`HttpServerError`), except `cors` and
 * `HttpResponse.serverHeader`, which must simply not be changed then. After `stop()` they can change again.
 */
export class HttpServer<C> {
  /** CORS settings (not guarded: assign before `start()`). */
  readonly cors = new HttpCorsConfig();
  /** How long `stop()` lets requests in flight finish before it closes their connections, in ms. */
  stopGracePeriod: number = HttpDefaults.stopGracePeriodMs;
  /**
   * How long `stop()` keeps serving after it starts answering `/ready` with 503, in ms (default 0), so that a
   * load balancer checking `/ready` takes this process out of rotation before it stops accepting
   * connections. Set it to the balancer's check interval times its fall count, plus a margin.
   */
  drainDelay: number = HttpDefaults.drainDelayMs;

  readonly #createContext: () => C;
  #baseUri = "";
  #port = 0;
  #boundPort = 0;
  #allowAnonymous = false;
  #allowMethodOverride = false;
  #maxRequestContentLength: number = HttpDefaults.maxRequestContentLength;
  #headersTimeout: number = HttpDefaults.headersTimeoutMs;
  #keepAliveTimeout: number = HttpDefaults.keepAliveTimeoutMs;
  #bodyTimeout: number = HttpDefaults.bodyTimeoutMs;
  #minBodyDataRate: number = HttpDefaults.minBodyDataRate;
  #trustedProxies: readonly string[] = HttpDefaults.trustedProxies;
  #onCanLog: ((request: HttpRequest) => boolean) | undefined;
  #onRedactContent: ((request: HttpRequest, content: string) => string) | undefined;
  readonly #bindAddresses: string[] = [];
  readonly #registrations: Registration<C>[] = [];
  readonly #registered = new Set<HttpControllerClass<C>>();
  readonly #startChecks: (() => Promise<void> | void)[] = [];
  #authentication: HttpAuthenticationClass<C> | undefined;
  #logger: HttpLogger<HttpRequest, HttpResponse> | undefined;
  #servers: Server[] = [];
  #pipeline: RequestPipeline<C> | undefined;
  #state: "stopped" | "starting" | "running" | "stopping" = "stopped";
  #balancerRoutes = false;
  #readiness: HttpReadiness | undefined;
  #readinessTimeout: number = HttpDefaults.readinessTimeoutMs;
  #balancer: BalancerState | undefined;
  #openApiOptions: OpenApiOptions = {};
  #openApiText: string | undefined;
  #openApiBytes: Uint8Array | undefined;
  #metrics: Required<HttpMetricsOptions> | undefined;
  #metricsPort = 0;
  #operations: OperationsObserver | undefined;
  #tracing = false;
  readonly #rateLimits: HttpRateLimit[] = [];
  #rateLimitStore: HttpRateLimitStore | undefined;
  #slowRequestThreshold = 0;

  /**
   * @param context the per-request context: a class built with no arguments for every request, or a function
   * answering a new context (`() => new AppContext(database)`); see `HttpContextSource` for how they are told apart.
   */
  constructor(context: HttpContextSource<C>) {
    this.#createContext = contextFactory(context);
  }

  /** True between a successful `start()` and `stop()`. */
  get isRunning(): boolean {
    return this.#state !== "stopped";
  }

  #guard(setting: string): void {
    if (this.#state !== "stopped") throw new HttpServerError(HttpMessages.refusedWhileRunning(setting));
  }

  /** Prefix of every route, such as `/api` (a leading `/` is added; '' registers routes as declared; a scheme is refused). */
  get baseUri(): string {
    return this.#baseUri;
  }
  set baseUri(value: string) {
    this.#guard("baseUri");
    const trimmed = value.trim();
    if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed)) throw new HttpServerError(HttpMessages.baseUriWithScheme(value));
    let uri = trimmed.replace(/\/+$/, "");
    if (uri !== "" && !uri.startsWith("/")) uri = "/" + uri;
    this.#baseUri = uri;
  }

  /** The listening port (0: an ephemeral port; while running, reads the port actually bound). */
  get port(): number {
    const bound = this.#state === "running" || this.#state === "stopping";
    return bound && this.#port === 0 ? this.#boundPort : this.#port;
  }
  set port(value: number) {
    this.#guard("port");
    if (!Number.isInteger(value) || value < 0 || value > 65535) throw new HttpServerError(HttpMessages.invalidPort(value));
    this.#port = value;
  }

  /** Serve every route without authentication, so `start()` needs no authentication class (areas still apply). */
  get allowAnonymous(): boolean {
    return this.#allowAnonymous;
  }
  set allowAnonymous(value: boolean) {
    this.#guard("allowAnonymous");
    this.#allowAnonymous = value;
  }

  /** Accept the method-override headers on POST (SPEC.md 4.4); default false: such a request answers 400. */
  get allowMethodOverride(): boolean {
    return this.#allowMethodOverride;
  }
  set allowMethodOverride(value: boolean) {
    this.#guard("allowMethodOverride");
    this.#allowMethodOverride = value;
  }

  /** The largest request body accepted, in bytes (default 1048576; 0 accepts any size). */
  get maxRequestContentLength(): number {
    return this.#maxRequestContentLength;
  }
  set maxRequestContentLength(value: number) {
    this.#guard("maxRequestContentLength");
    if (!Number.isSafeInteger(value) || value < 0) throw new HttpServerError(HttpMessages.invalidMaxContentLength(value));
    this.#maxRequestContentLength = value;
  }

  /**
   * How long a request line and its headers may take to arrive, in ms (default 10000, as the reverse proxies
   * in front use): a client that sends them more slowly gets 408 and its connection closed. 0 disables it.
   */
  get headersTimeout(): number {
    return this.#headersTimeout;
  }
  set headersTimeout(value: number) {
    this.#headersTimeout = this.#checkedDuration("headersTimeout", value);
  }

  /** How long a kept-alive connection may wait idle for its next request, in ms (default 5000; 0 never closes it). */
  get keepAliveTimeout(): number {
    return this.#keepAliveTimeout;
  }
  set keepAliveTimeout(value: number) {
    this.#keepAliveTimeout = this.#checkedDuration("keepAliveTimeout", value);
  }

  /**
   * The time a request body may take, in ms, before the data rate counts (default 10000; 0 disables the
   * watch). With `minBodyDataRate` it sets a minimum rate, not a cap on the whole request: the allowance
   * grows by one second for every `minBodyDataRate` bytes received, so an upload that keeps progressing at
   * that rate is never cut, however long it is. A body slower than that is answered 408 and its connection closed.
   */
  get bodyTimeout(): number {
    return this.#bodyTimeout;
  }
  set bodyTimeout(value: number) {
    this.#bodyTimeout = this.#checkedDuration("bodyTimeout", value);
  }

  /** The body bytes that earn one more second of `bodyTimeout` (default 512, that is 512 bytes per second; 0: no credit). */
  get minBodyDataRate(): number {
    return this.#minBodyDataRate;
  }
  set minBodyDataRate(value: number) {
    this.#minBodyDataRate = this.#checkedDuration("minBodyDataRate", value);
  }

  /**
   * The peers whose `X-Forwarded-For` gives `HttpRequest.clientIp` (SPEC.md 2.4): IPv4 and IPv6 addresses and
   * CIDR ranges such as `10.0.0.0/8`. Default the loopback peers, `127.0.0.0/8` and `::1` (their
   * `::ffff:`-mapped forms included); an empty list believes no peer. An invalid entry throws `HttpServerError`.
   */
  get trustedProxies(): readonly string[] {
    return this.#trustedProxies;
  }
  set trustedProxies(value: readonly string[]) {
    this.#guard("trustedProxies");
    trustedProxyRule(value);
    this.#trustedProxies = Object.freeze([...value]);
  }

  #checkedDuration(setting: string, value: number): number {
    this.#guard(setting);
    if (!Number.isSafeInteger(value) || value < 0) throw new HttpServerError(HttpMessages.invalidTimeout(setting, value));
    return value;
  }

  /** Asked before a log entry is built; false skips it (SPEC.md 2.1 OnCanLog). */
  get onCanLog(): ((request: HttpRequest) => boolean) | undefined {
    return this.#onCanLog;
  }
  set onCanLog(value: ((request: HttpRequest) => boolean) | undefined) {
    this.#guard("onCanLog");
    this.#onCanLog = value;
  }

  /** Returns the text to log for a request or response body (SPEC.md 2.1 OnRedactContent). */
  get onRedactContent(): ((request: HttpRequest, content: string) => string) | undefined {
    return this.#onRedactContent;
  }
  set onRedactContent(value: ((request: HttpRequest, content: string) => string) | undefined) {
    this.#guard("onRedactContent");
    this.#onRedactContent = value;
  }

  /**
   * Serve `GET <base>/live` and `GET <base>/ready` for load balancers (API.md), anonymous whatever the
   * authentication (default false). `/live` answers `{"status":"ok"}` while the process answers at all;
   * `/ready` answers it when `readiness` (if set) succeeds and the server is not stopping, else 503 with a
   * reason. An application route at the same address is refused at `start()` as a duplicate.
   */
  get balancerRoutes(): boolean {
    return this.#balancerRoutes;
  }
  set balancerRoutes(value: boolean) {
    this.#guard("balancerRoutes");
    this.#balancerRoutes = value;
  }

  /** What `/ready` asks before it answers 200 (the database is reachable...); undefined: nothing but draining. */
  get readiness(): HttpReadiness | undefined {
    return this.#readiness;
  }
  set readiness(value: HttpReadiness | undefined) {
    this.#guard("readiness");
    this.#readiness = value;
  }

  /** How long a readiness check may take before `/ready` answers 503, in ms (default 2000). */
  get readinessTimeout(): number {
    return this.#readinessTimeout;
  }
  set readinessTimeout(value: number) {
    this.#guard("readinessTimeout");
    if (!Number.isFinite(value) || value < 0) throw new HttpServerError(HttpMessages.invalidDuration("readinessTimeout", value));
    this.#readinessTimeout = value;
  }

  /**
   * Prometheus metrics (docs/operations.md), off by default: set `{ port, token }` (and optionally
   * `bindAddress`, default `127.0.0.1`, `path`, `pools`) to serve them on a listener of their own to
   * scrapers sending `Authorization: Bearer <token>`. Needs the optional peer dependency `prom-client`,
   * loaded by `start()`. In workers started by `runWorkers` with `metrics`, the primary serves the sum of all
   * workers instead. An invalid setting throws `HttpServerError`.
   */
  get metrics(): HttpMetricsOptions | undefined {
    return this.#metrics;
  }
  set metrics(value: HttpMetricsOptions | undefined) {
    this.#guard("metrics");
    this.#metrics = value === undefined ? undefined : checkedMetricsOptions(value);
  }

  /**
   * OpenTelemetry tracing (docs/operations.md), off by default: a server span per request named by its route
   * template, a client span per SQL statement, the parent taken from an incoming `traceparent`. Spans go to
   * the tracer provider the application registers (the OpenTelemetry SDK); `start()` loads the optional peer
   * dependency `@opentelemetry/api`, and without it tracing is a no-op.
   */
  get tracing(): boolean {
    return this.#tracing;
  }
  set tracing(value: boolean) {
    this.#guard("tracing");
    this.#tracing = value;
  }

  /**
   * Adds a rate limit (docs/operations.md): at most `limit` requests per `windowSeconds` per client address
   * (`by: "ip"`, decided before authentication) or per user (`by: "user"`, after it), on every request or on
   * one `route` (`"POST /api/logon"`). Over it a request answers 429 with `Retry-After`, and every answer of
   * a limited request carries the IETF `RateLimit-Policy` and `RateLimit` headers. None by default.
   */
  addRateLimit(limit: HttpRateLimit): void {
    this.#guard("addRateLimit");
    this.#rateLimits.push(checkedRateLimit(limit, this.#rateLimits));
    this.#openApiText = undefined;
  }

  /** The rate limits added so far. */
  get rateLimits(): readonly HttpRateLimit[] {
    return [...this.#rateLimits];
  }

  /**
   * Where the rate-limit counts are kept: in this process by default (a fresh `MemoryRateLimitStore` at
   * every start), or a `RedisRateLimitStore` so that several processes share one budget per client.
   */
  get rateLimitStore(): HttpRateLimitStore | undefined {
    return this.#rateLimitStore;
  }
  set rateLimitStore(value: HttpRateLimitStore | undefined) {
    this.#guard("rateLimitStore");
    this.#rateLimitStore = value;
  }

  /**
   * The slow request log (docs/operations.md), off by default (0): a request that takes at least this many
   * milliseconds has a response log record that carries its duration and its SQL statements with theirs
   * (the texts only: parameter values are never logged). Needs a log writer to show anywhere.
   */
  get slowRequestThreshold(): number {
    return this.#slowRequestThreshold;
  }
  set slowRequestThreshold(value: number) {
    this.#guard("slowRequestThreshold");
    if (!Number.isFinite(value) || value < 0) throw new HttpServerError(HttpMessages.invalidDuration("slowRequestThreshold", value));
    this.#slowRequestThreshold = value;
  }

  /** The port the metrics listener bound while running (0 when stopped, without metrics, or in an aggregated worker). */
  get metricsPort(): number {
    return this.#metricsPort;
  }

  /** True from the moment `stop()` begins until the server is stopped: `/ready` answers 503. */
  get isDraining(): boolean {
    return this.#state === "stopping";
  }

  /** The bind addresses added so far. */
  get bindAddresses(): readonly string[] {
    return [...this.#bindAddresses];
  }

  /**
   * Adds a listening address: an IPv4 or IPv6 literal, without host name, port or brackets. With none the
   * server listens on every IPv4 interface; `::` listens on every IPv6 interface.
   */
  addBindAddress(address: string): void {
    this.#guard("addBindAddress");
    if (isIP(address) === 0) throw new HttpServerError(HttpMessages.invalidBindAddress(address));
    if (this.#bindAddresses.some((known) => known.toLowerCase() === address.toLowerCase())) {
      throw new HttpServerError(HttpMessages.duplicateBindAddress(address));
    }
    this.#bindAddresses.push(address);
  }

  /**
   * Registers a controller at `uri`, or at its `@Uri` when no `uri` is given. A class registers once; a
   * generic controller registers one subclass per entity, each with its own URI. Route shapes are checked
   * here (a fixed segment after a placeholder is refused).
   */
  registerController(controller: HttpControllerClass<C>, uri?: string): void {
    this.#guard("registerController");
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
    this.#openApiText = undefined;
  }

  /**
   * The OpenAPI 3.1 document of every registered route (docs/openapi.md): paths, methods, placeholders,
   * security, areas, the standard error answers and the bodies that controller classes describe (the
   * generic entity controllers describe theirs from the mapping). Built on first use and cached; `options`
   * set the `info` object and rebuild it. Answers a copy the caller may change.
   */
  openApi(options?: OpenApiOptions): OpenApiDocument {
    if (options !== undefined) {
      this.#openApiOptions = { ...options };
      this.#openApiText = undefined;
    }
    return JSON.parse(this.#openApiDocumentText()) as OpenApiDocument;
  }

  /**
   * Serves the OpenAPI document at `GET <base><path>` (default `/openapi.json`), anonymous, from one cached
   * buffer (the UTF-8 text with its length) built on the first request. Register it before `start()`.
   */
  serveOpenApi(path = "/openapi.json", options?: OpenApiOptions): void {
    if (options !== undefined) this.#openApiOptions = { ...options };
    this.registerController(
      openApiController<C>(() => this.#openApiDocumentBytes()),
      path,
    );
  }

  /** The served document: its text encoded once as UTF-8, kept until the text is rebuilt. */
  #openApiDocumentBytes(): Uint8Array {
    const text = this.#openApiDocumentText();
    if (this.#openApiBytes === undefined) this.#openApiBytes = Buffer.from(text, "utf8");
    return this.#openApiBytes;
  }

  #openApiDocumentText(): string {
    if (this.#openApiText === undefined) {
      this.#openApiBytes = undefined;
      const routes: DocumentedRoute[] = [];
      const balancer: BalancerState = { readiness: undefined, readinessTimeout: 0, draining: false };
      for (const resolved of this.#resolvedRoutes(this.#balancerRoutes ? balancer : undefined)) {
        routes.push({
          ...resolved,
          method: resolved.verb.method,
          params: resolved.target.params,
          areas: resolved.target.areas,
          requiresAuthentication: resolved.target.requiresAuthentication,
          rateLimited: this.#rateLimits.some(
            (limit) => limit.route === undefined || limit.route === `${resolved.verb.method} ${resolved.pattern}`,
          ),
        });
      }
      const authentication = this.#authentication;
      const scheme =
        authentication === undefined ? undefined : authentication.prototype instanceof BasicAuthentication ? "basic" : "bearer";
      this.#openApiText = JSON.stringify(buildOpenApiDocument(routes, scheme, this.#openApiOptions));
    }
    return this.#openApiText;
  }

  /** Registers the authentication class, built once per request that needs authentication. */
  registerAuthentication(authentication: HttpAuthenticationClass<C>): void {
    this.#guard("registerAuthentication");
    this.#authentication = authentication;
  }

  /** Registers the log writer: one consumer, `poolSize` consumers, or a full `HttpLogParameters` record. */
  registerLogWriter(writer: HttpLogWriterClass, poolSizeOrParameters?: number | HttpLogParameters): void {
    this.#guard("registerLogWriter");
    this.#logger = new HttpLogger<HttpRequest, HttpResponse>(writer, poolSizeOrParameters);
  }

  /**
   * Adds a check that `start()` runs, in the order added, before it listens: a check that throws or rejects
   * makes `start()` reject with that error, and the server does not start. The ORM side provides checks
   * (for example `Schema.startCheck(database, entities)`, which refuses a database that differs from the mapping).
   */
  addStartCheck(check: () => Promise<void> | void): void {
    this.#guard("addStartCheck");
    this.#startChecks.push(check);
  }

  /** Builds the route table, checks the authentication rules (SPEC.md 3, 5), runs the start checks and starts listening. */
  async start(): Promise<void> {
    if (this.#state !== "stopped") throw new HttpServerError(HttpMessages.alreadyRunning);
    if (this.#authentication === undefined && !this.#allowAnonymous) throw new HttpServerError(HttpMessages.noAuthentication);
    const balancer: BalancerState | undefined = this.#balancerRoutes
      ? { readiness: this.#readiness, readinessTimeout: this.#readinessTimeout, draining: false }
      : undefined;
    const router = this.#buildRouter(balancer);
    this.#checkRateLimitRoutes(balancer);
    this.#state = "starting";
    try {
      for (const check of this.#startChecks) await check();
    } catch (error) {
      this.#state = "stopped";
      throw error;
    }
    let operations: OperationsObserver | undefined;
    let counted: RequestPipeline<C> | undefined;
    try {
      operations = await this.#startOperations(() => counted?.inFlight ?? 0);
    } catch (error) {
      this.#state = "stopped";
      throw error;
    }
    const pipeline = new RequestPipeline<C>({
      createContext: this.#createContext,
      router,
      authentication: this.#authentication,
      authenticateUnknown: this.#authentication !== undefined && !this.#allowAnonymous,
      allowMethodOverride: this.#allowMethodOverride,
      maxRequestContentLength: this.#maxRequestContentLength,
      cors: this.cors,
      logger: this.#logger,
      isTrustedProxy: trustedProxyRule(this.#trustedProxies),
      bodyTimeout: this.#bodyTimeout,
      minBodyDataRate: this.#minBodyDataRate,
      observer: operations,
      rateLimiter:
        this.#rateLimits.length === 0 ? undefined : new RateLimiter(this.#rateLimits, this.#rateLimitStore ?? new MemoryRateLimitStore()),
    });
    counted = pipeline;
    try {
      this.#logger?.open({ onCanLog: this.#onCanLog, onRedactContent: this.#onRedactContent });
      const addresses = this.#bindAddresses.length > 0 ? this.#bindAddresses : ["0.0.0.0"];
      const ipv4Wildcard = addresses.includes("0.0.0.0");
      let port = this.#port;
      for (const address of addresses) {
        const server = createServer(this.#serverOptions(), pipeline.onRequest);
        guardConnections(server, {
          cors: this.cors,
          maxRequestContentLength: this.#maxRequestContentLength,
          onRequest: pipeline.onRequest,
        });
        this.#servers.push(server);
        port = await listen(server, address, port, address === "::" && ipv4Wildcard);
      }
      this.#boundPort = port;
    } catch (error) {
      await Promise.all(this.#servers.map(closeServer));
      this.#servers = [];
      pipeline.close();
      if (this.#logger !== undefined) await this.#logger.close();
      await this.#stopOperations(operations);
      this.#state = "stopped";
      throw error;
    }
    this.#operations = operations;
    this.#pipeline = pipeline;
    this.#balancer = balancer;
    this.#state = "running";
    runningServers.count++;
  }

  /**
   * Drains, then stops: `/ready` answers 503 at once while the server keeps serving as before for
   * `drainDelay` ms (so that a load balancer moves away); then it stops accepting connections, answers with
   * `Connection: close` from then on, lets requests in flight finish and open connections leave by
   * themselves, closes the rest (all of it within `stopGracePeriod` ms), and drains the log. Does nothing
   * when stopped.
   */
  async stop(): Promise<void> {
    if (this.#state !== "running") return;
    this.#state = "stopping";
    const pipeline = this.#pipeline!;
    if (this.#balancer !== undefined) this.#balancer.draining = true;
    if (this.drainDelay > 0) await new Promise((resolve) => setTimeout(resolve, this.drainDelay));
    await closeServers(this.#servers, pipeline, this.stopGracePeriod);
    try {
      if (this.#logger !== undefined) await this.#logger.close();
    } finally {
      pipeline.close();
      await this.#stopOperations(this.#operations);
      this.#operations = undefined;
      this.#servers = [];
      this.#pipeline = undefined;
      this.#balancer = undefined;
      this.#state = "stopped";
      runningServers.count--;
    }
  }

  /** Refuses a rate limit whose route is not registered (a typo would silently limit nothing). */
  #checkRateLimitRoutes(balancer: BalancerState | undefined): void {
    const routes = new Set<string>();
    for (const { verb, pattern } of this.#resolvedRoutes(balancer)) routes.add(`${verb.method} ${pattern}`);
    for (const limit of this.#rateLimits) {
      if (limit.route !== undefined && !routes.has(limit.route))
        throw new HttpServerError(OperationsMessages.unknownRateLimitRoute(limit.route));
    }
  }

  /** Starts metrics, tracing and the slow request log when configured; undefined when all are off. */
  async #startOperations(inFlight: () => number): Promise<OperationsObserver | undefined> {
    const operations = await startOperations({
      metrics: this.#metrics,
      tracing: this.#tracing,
      slowRequestThreshold: this.#slowRequestThreshold,
      logger: this.#logger,
      inFlight,
    });
    this.#metricsPort = operations?.metricsPort ?? 0;
    return operations;
  }

  async #stopOperations(operations: OperationsObserver | undefined): Promise<void> {
    this.#metricsPort = 0;
    try {
      await operations?.close();
    } catch {
      // a listener that fails to close leaves nothing for the caller to do
    }
  }

  /** Stops the server when it runs (SPEC.md 3 Destroy). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  /** The number of requests in flight (0 when stopped). */
  get requestsInFlight(): number {
    return this.#pipeline?.inFlight ?? 0;
  }

  /**
   * node:http's own timers: headers as configured (checked often enough to honour a timeout of a few
   * seconds; node checks every 30 s by default), keep-alive as configured, no whole-request timeout, which
   * would cut a slow upload that the body watch lets progress, and the missing-Host 400 left to the pipeline,
   * which answers it with the JSON body.
   */
  #serverOptions(): ServerOptions {
    const headersTimeout = this.#headersTimeout;
    return {
      headersTimeout,
      requestTimeout: 0,
      requireHostHeader: false,
      keepAliveTimeout: this.#keepAliveTimeout,
      connectionsCheckingInterval: headersTimeout > 0 ? Math.max(100, Math.min(1000, Math.floor(headersTimeout / 4))) : 30000,
    };
  }

  #buildRouter(balancer: BalancerState | undefined): HttpRouter<RouteTarget<C>> {
    const router = new HttpRouter<RouteTarget<C>>();
    for (const { verb, pattern, target } of this.#resolvedRoutes(balancer)) {
      router.add(verb.method, pattern, target, (existing) => existing.description);
    }
    return router;
  }

  /** Every route with its full pattern and target, checked against the authentication rules (SPEC.md 3, 5). */
  *#resolvedRoutes(balancer: BalancerState | undefined): Generator<{
    controller: HttpControllerClass<C>;
    methodName: string;
    verb: ControllerRoute["verb"];
    pattern: string;
    target: RouteTarget<C>;
  }> {
    const registrations =
      balancer === undefined ? this.#registrations : [...this.#registrations, { controller: balancerController<C>(balancer), uri: "/" }];
    for (const { controller, uri } of registrations) {
      for (const route of controllerRoutesOf(controller)) {
        const pattern = joinPath(this.#baseUri, joinPath(uri, route.verb.path));
        const description = `${route.verb.method} ${pattern} (${controller.name}.${route.methodName})`;
        const explicitNone = route.authorization === HttpAuthorizationType.None;
        if (route.areas.length > 0) {
          if (this.#authentication === undefined) throw new HttpServerError(HttpMessages.areaWithoutAuthentication(description));
          if (explicitNone) throw new HttpServerError(HttpMessages.areaWithAnonymousRoute(description));
        }
        const requiresAuthentication =
          route.authorization === undefined
            ? route.areas.length > 0 || !this.#allowAnonymous
            : route.authorization === HttpAuthorizationType.Authentication;
        const target: RouteTarget<C> = {
          controller,
          methodName: route.methodName,
          handler: route.handler,
          params: pattern.endsWith("*") ? "string" : route.verb.params,
          areas: route.areas,
          requiresAuthentication,
          description,
          route: pattern,
        };
        yield { controller, methodName: route.methodName, verb: route.verb, pattern, target };
      }
    }
  }
}
