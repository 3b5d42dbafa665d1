import type { Server } from "node:http";
import { contextFactory, type HttpContextSource } from "./context-source.js";

export type { HttpContextSource } from "./context-source.js";
import type { HttpAuthenticationClass } from "../auth/http-authentication.js";
import { BasicAuthentication } from "../auth/basic-authentication.js";
import type { BalancerState } from "../balancer/balancer-routes.js";
import { trustedProxyRule } from "../exchange/client-ip.js";
import type { HttpControllerClass } from "../exchange/http-controller.js";
import { HttpServerError } from "../exchange/http-errors.js";
import type { HttpRequest } from "../exchange/http-request.js";
import type { HttpResponse } from "../exchange/http-response.js";
import { HttpMessages } from "../exchange/http-messages.js";
import { HttpLogger, type HttpLogParameters, type HttpLogWriterClass } from "../logging/http-logger.js";
import { runningServers } from "../logging/running-servers.js";
import { buildOpenApiDocument } from "../openapi/openapi-builder.js";
import { callerOpenApiController, openApiController } from "../openapi/openapi-controller.js";
import type { HttpUser } from "../exchange/http-user.js";
import type { OpenApiDocument, OpenApiOptions } from "../openapi/openapi-types.js";
import { type OperationsObserver, startOperations } from "../operations/operations-observer.js";
import { checkedRateLimit, type HttpRateLimit, RateLimiter } from "../operations/rate-limiter.js";
import { MemoryRateLimitStore } from "../operations/rate-limit-store.js";
import { RequestPipeline } from "./request-pipeline.js";
import { closeServer, listenAll } from "./server-listen.js";
import { type RouteRules, ServerRoutes } from "./server-routes.js";
import { HttpServerSettings, refuseWhileRunning } from "./server-settings.js";
import { closeServers } from "./server-shutdown.js";

/** How many callers' documents `serveCallerOpenApi` keeps before it starts again. */
const maxRoleDocuments = 256;

/**
 * The HTTP server. Configure it, register controllers and an authentication class, then
 * `start()`. For every request other than a CORS preflight it builds a fresh context with
 * `new ContextClass()` (or the factory it was given), resolves the route, authenticates, checks areas and calls the handler; the context
 * is disposed (`Symbol.asyncDispose` or `Symbol.dispose`, when it has one) after the response is sent.
 * A context class with `attachRequest(request, response)` gets it called right after construction.
 *
 * Settings (`HttpServerSettings`) refuse changes while the server runs (`HttpServerError`), except `cors` and
 * `HttpResponse.serverHeader`, which must simply not be changed then. After `stop()` they can change again.
 */
export class HttpServer<C> extends HttpServerSettings {
  readonly #createContext: () => C;
  #port = 0;
  #boundPort = 0;
  readonly #routes = new ServerRoutes<C>();
  readonly #startChecks: (() => Promise<void> | void)[] = [];
  #authentication: HttpAuthenticationClass<C> | undefined;
  #logger: HttpLogger<HttpRequest, HttpResponse> | undefined;
  #servers: Server[] = [];
  #pipeline: RequestPipeline<C> | undefined;
  #state: "stopped" | "starting" | "running" | "stopping" = "stopped";
  #balancer: BalancerState | undefined;
  #openApiOptions: OpenApiOptions = {};
  #openApiText: string | undefined;
  #openApiBytes: Uint8Array | undefined;
  readonly #roleDocuments = new Map<string, Uint8Array>();
  #metricsPort = 0;
  #operations: OperationsObserver | undefined;
  readonly #rateLimits: HttpRateLimit[] = [];

  /**
   * @param context the per-request context: a class built with no arguments for every request, or a function
   * answering a new context (`() => new AppContext(database)`); see `HttpContextSource` for how they are told apart.
   */
  constructor(context: HttpContextSource<C>) {
    super();
    this.#createContext = contextFactory(context);
  }

  /** True between a successful `start()` and `stop()`. */
  override get isRunning(): boolean {
    return this.#state !== "stopped";
  }

  /** The listening port (0: an ephemeral port; while running, reads the port actually bound). */
  get port(): number {
    const bound = this.#state === "running" || this.#state === "stopping";
    return bound && this.#port === 0 ? this.#boundPort : this.#port;
  }
  set port(value: number) {
    refuseWhileRunning(this, "port");
    if (!Number.isInteger(value) || value < 0 || value > 65535) throw new HttpServerError(HttpMessages.invalidPort(value));
    this.#port = value;
  }

  /**
   * Adds a rate limit (docs/operations.md): at most `limit` requests per `windowSeconds` per client address
   * (`by: "ip"`, decided before authentication) or per user (`by: "user"`, after it), on every request or on
   * one `route` (`"POST /api/logon"`). Over it a request answers 429 with `Retry-After`, and every answer of
   * a limited request carries the IETF `RateLimit-Policy` and `RateLimit` headers. None by default.
   */
  addRateLimit(limit: HttpRateLimit): void {
    refuseWhileRunning(this, "addRateLimit");
    this.#rateLimits.push(checkedRateLimit(limit, this.#rateLimits));
    this.#openApiText = undefined;
  }

  /** The rate limits added so far. */
  get rateLimits(): readonly HttpRateLimit[] {
    return [...this.#rateLimits];
  }

  /** The port the metrics listener bound while running (0 when stopped, without metrics, or in an aggregated worker). */
  get metricsPort(): number {
    return this.#metricsPort;
  }

  /** True from the moment `stop()` begins until the server is stopped: `/ready` answers 503. */
  get isDraining(): boolean {
    return this.#state === "stopping";
  }

  /**
   * Registers a controller at `uri`, or at its `@Uri` when no `uri` is given. A class registers once; a
   * generic controller registers one subclass per entity, each with its own URI. Route shapes are checked
   * here (a fixed segment after a placeholder is refused).
   */
  registerController(controller: HttpControllerClass<C>, uri?: string): void {
    refuseWhileRunning(this, "registerController");
    this.#routes.register(controller, uri);
    this.#openApiText = undefined;
  }

  /**
   * The OpenAPI 3.1 document of every registered route (docs/openapi.md): paths, methods, placeholders,
   * security, areas, the standard error answers and the bodies that controller classes describe (the
   * generic entity controllers describe theirs from the mapping). Built on first use and cached; `options`
   * set the `info` object and rebuild it. With `options.role`, the document that caller sees (docs/policies.md):
   * only the routes of its areas, and of each entity what its policy lets it read, write and call; the stored
   * `info` applies unless `options` gives another, and the served document is left as it is. Answers a copy the
   * caller may change.
   */
  openApi(options?: OpenApiOptions): OpenApiDocument {
    if (options?.role !== undefined) {
      const { role, ...info } = options;
      return JSON.parse(
        Buffer.from(this.#roleDocumentBytes(role, { ...this.#openApiOptions, ...info })).toString("utf8"),
      ) as OpenApiDocument;
    }
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

  /**
   * Serves at `GET <base><path>` (default `/openapi/mine`) the OpenAPI document as the authenticated caller sees it
   * (`openApi({ role: request.user })`): what its areas and the entities' policies let it call, read and write. The
   * route needs authentication (401 otherwise); each caller's document is built once and kept while the server runs.
   */
  serveCallerOpenApi(path = "/openapi/mine"): void {
    this.registerController(
      callerOpenApiController<C>((user) =>
        user === undefined ? this.#openApiDocumentBytes() : this.#roleDocumentBytes(user, this.#openApiOptions),
      ),
      path,
    );
  }

  /** The document of one caller, as UTF-8, from a small cache by what can decide it (its name, areas, tenant and claims). */
  #roleDocumentBytes(role: HttpUser, options: OpenApiOptions): Uint8Array {
    this.#openApiDocumentText();
    const key = JSON.stringify(
      [options, role.username, role.tenant, [...role.areas].map((area) => area.toLowerCase()).sort(), role.claims],
      (_, value) => (typeof value === "bigint" ? `${value}n` : value),
    );
    let bytes = this.#roleDocuments.get(key);
    if (bytes === undefined) {
      const balancer: BalancerState = { readiness: undefined, readinessTimeout: 0, draining: false };
      const routes = this.#routes.documented(this.#routeRules(), this.balancerRoutes ? balancer : undefined, this.#rateLimits);
      bytes = Buffer.from(JSON.stringify(buildOpenApiDocument(routes, this.#securityScheme(), { ...options, role })), "utf8");
      if (this.#roleDocuments.size >= maxRoleDocuments) this.#roleDocuments.clear();
      this.#roleDocuments.set(key, bytes);
    }
    return bytes;
  }

  /** The security scheme of the registered authentication class, for the document. */
  #securityScheme(): "basic" | "bearer" | undefined {
    const authentication = this.#authentication;
    return authentication === undefined ? undefined : authentication.prototype instanceof BasicAuthentication ? "basic" : "bearer";
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
      this.#roleDocuments.clear();
      const balancer: BalancerState = { readiness: undefined, readinessTimeout: 0, draining: false };
      const routes = this.#routes.documented(this.#routeRules(), this.balancerRoutes ? balancer : undefined, this.#rateLimits);
      this.#openApiText = JSON.stringify(buildOpenApiDocument(routes, this.#securityScheme(), this.#openApiOptions));
    }
    return this.#openApiText;
  }

  /** Registers the authentication class, built once per request that needs authentication. */
  registerAuthentication(authentication: HttpAuthenticationClass<C>): void {
    refuseWhileRunning(this, "registerAuthentication");
    this.#authentication = authentication;
  }

  /** Registers the log writer: one consumer, `poolSize` consumers, or a full `HttpLogParameters` record. */
  registerLogWriter(writer: HttpLogWriterClass, poolSizeOrParameters?: number | HttpLogParameters): void {
    refuseWhileRunning(this, "registerLogWriter");
    this.#logger = new HttpLogger<HttpRequest, HttpResponse>(writer, poolSizeOrParameters);
  }

  /**
   * Adds a check that `start()` runs, in the order added, before it listens: a check that throws or rejects
   * makes `start()` reject with that error, and the server does not start. The ORM side provides checks
   * (for example `Schema.startCheck(database, entities)`, which refuses a database that differs from the mapping).
   */
  addStartCheck(check: () => Promise<void> | void): void {
    refuseWhileRunning(this, "addStartCheck");
    this.#startChecks.push(check);
  }

  /** Builds the route table, checks the authentication rules (areas need authentication), runs the start checks and starts listening. */
  async start(): Promise<void> {
    if (this.#state !== "stopped") throw new HttpServerError(HttpMessages.alreadyRunning);
    if (this.#authentication === undefined && !this.allowAnonymous) throw new HttpServerError(HttpMessages.noAuthentication);
    const balancer: BalancerState | undefined = this.balancerRoutes
      ? { readiness: this.readiness, readinessTimeout: this.readinessTimeout, draining: false }
      : undefined;
    const rules = this.#routeRules();
    const router = this.#routes.router(rules, balancer);
    this.#routes.checkRateLimitRoutes(rules, balancer, this.#rateLimits);
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
      authenticateUnknown: this.#authentication !== undefined && !this.allowAnonymous,
      allowMethodOverride: this.allowMethodOverride,
      maxRequestContentLength: this.maxRequestContentLength,
      maxStreamedContentLength: this.maxStreamedContentLength,
      streamedMediaTypes: this.#routes.streamedMediaTypes(rules, balancer),
      cors: this.cors,
      logger: this.#logger,
      isTrustedProxy: trustedProxyRule(this.trustedProxies),
      bodyTimeout: this.bodyTimeout,
      minBodyDataRate: this.minBodyDataRate,
      observer: operations,
      rateLimiter:
        this.#rateLimits.length === 0
          ? undefined
          : new RateLimiter(this.#rateLimits, this.rateLimitStore ?? new MemoryRateLimitStore(), this.rateLimitStoreTimeout),
    });
    counted = pipeline;
    try {
      this.#logger?.open({ onCanLog: this.onCanLog, onRedactContent: this.onRedactContent });
      const bindAddresses = this.bindAddresses;
      const addresses = bindAddresses.length > 0 ? bindAddresses : ["0.0.0.0"];
      this.#boundPort = await listenAll(this.#servers, addresses, this.#port, this, {
        cors: this.cors,
        bodyCeilingOf: pipeline.bodyCeilingOf,
        onRequest: pipeline.onRequest,
      });
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

  /** What the settings and the registered authentication decide about every route. */
  #routeRules(): RouteRules<C> {
    return { baseUri: this.baseUri, authentication: this.#authentication, allowAnonymous: this.allowAnonymous };
  }

  /** Starts metrics, tracing and the slow request log when configured; undefined when all are off. */
  async #startOperations(inFlight: () => number): Promise<OperationsObserver | undefined> {
    const operations = await startOperations({
      metrics: this.checkedMetrics,
      tracing: this.tracing,
      slowRequestThreshold: this.slowRequestThreshold,
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

  /** Stops the server when it runs (`await using` calls it). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  /** The number of requests in flight (0 when stopped). */
  get requestsInFlight(): number {
    return this.#pipeline?.inFlight ?? 0;
  }
}
