import { isIP } from "node:net";
import type { HttpReadiness } from "../balancer/http-readiness.js";
import { trustedProxyRule } from "../exchange/client-ip.js";
import { HttpCorsConfig } from "./http-cors-config.js";
import { HttpServerError } from "../exchange/http-errors.js";
import type { HttpRequest } from "../exchange/http-request.js";
import { HttpDefaults, HttpMessages } from "../exchange/http-messages.js";
import { checkedMetricsOptions, type HttpMetricsOptions } from "../operations/http-metrics.js";
import type { HttpRateLimitStore } from "../operations/rate-limit-store.js";

/** What a setting asks of the server it belongs to. @internal */
export interface RunningState {
  readonly isRunning: boolean;
}

/** Throws `HttpServerError` while the server runs: its settings change only while it is stopped. @internal */
export function refuseWhileRunning(server: RunningState, setting: string): void {
  if (server.isRunning) throw new HttpServerError(HttpMessages.refusedWhileRunning(setting));
}

/** Marks an accessor as a setting: assigning it while the server runs throws `HttpServerError`. @internal */
export function setting<This extends RunningState, V>(
  target: ClassAccessorDecoratorTarget<This, V>,
  context: ClassAccessorDecoratorContext<This, V>,
): ClassAccessorDecoratorResult<This, V> {
  const name = String(context.name);
  return {
    set(value) {
      refuseWhileRunning(this, name);
      target.set.call(this, value);
    },
  };
}

/** A setting whose value `check` vets (throwing `HttpServerError`) and answers as it is kept. @internal */
export function checkedSetting<V>(check: (value: V, setting: string) => V) {
  return <This extends RunningState>(
    target: ClassAccessorDecoratorTarget<This, V>,
    context: ClassAccessorDecoratorContext<This, V>,
  ): ClassAccessorDecoratorResult<This, V> => {
    const name = String(context.name);
    return {
      set(value) {
        refuseWhileRunning(this, name);
        target.set.call(this, check(value, name));
      },
    };
  };
}

/** A path prefix: trimmed, without trailing `/`, with a leading one unless empty; a scheme is refused. */
function checkedBaseUri(value: string): string {
  const trimmed = value.trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed)) throw new HttpServerError(HttpMessages.baseUriWithScheme(value));
  let uri = trimmed.replace(/\/+$/, "");
  if (uri !== "" && !uri.startsWith("/")) uri = "/" + uri;
  return uri;
}

function checkedContentLength(value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new HttpServerError(HttpMessages.invalidMaxContentLength(value));
  return value;
}

/** A timer of node:http or of the body watch: a whole number of milliseconds (or bytes), 0 or more. */
function checkedTimeout(value: number, setting: string): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new HttpServerError(HttpMessages.invalidTimeout(setting, value));
  return value;
}

/** A duration of the server's own timers: any finite number of milliseconds, 0 or more. */
function checkedDuration(value: number, setting: string): number {
  if (!Number.isFinite(value) || value < 0) throw new HttpServerError(HttpMessages.invalidDuration(setting, value));
  return value;
}

function checkedProxies(value: readonly string[]): readonly string[] {
  trustedProxyRule(value);
  return Object.freeze([...value]);
}

/**
 * The settings of an `HttpServer`, each with its default: what `start()` reads to build the running server.
 * Every setting but `cors`, `stopGracePeriod` and `drainDelay` refuses a change while the server runs.
 */
export abstract class HttpServerSettings {
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

  /** True between a successful `start()` and `stop()`. */
  abstract get isRunning(): boolean;

  /** Prefix of every route, such as `/api` (a leading `/` is added; '' registers routes as declared; a scheme is refused). */
  @checkedSetting(checkedBaseUri) accessor baseUri = "";

  /** Serve every route without authentication, so `start()` needs no authentication class (areas still apply). */
  @setting accessor allowAnonymous = false;

  /** Accept the method-override headers on POST; default false: such a request answers 400. */
  @setting accessor allowMethodOverride = false;

  /** The largest request body accepted, in bytes (default 1048576; 0 accepts any size). */
  @checkedSetting(checkedContentLength) accessor maxRequestContentLength: number = HttpDefaults.maxRequestContentLength;

  /**
   * The largest body of a route that reads its body as a stream (`HttpRouteOptions.streamedBody`: the NDJSON
   * import of the generic bulk route), in bytes (default 1073741824, 1 GiB; 0 accepts any size). Such a body is
   * never held whole, so it is bounded by this rather than by `maxRequestContentLength`: a declared length above
   * it is answered 413 before any byte is read, and a chunked body that grows past it fails with 413 there.
   */
  @checkedSetting(checkedContentLength) accessor maxStreamedContentLength: number = HttpDefaults.maxStreamedContentLength;

  /**
   * How long a request line and its headers may take to arrive, in ms (default 10000, as the reverse proxies
   * in front use): a client that sends them more slowly gets 408 and its connection closed. 0 disables it.
   */
  @checkedSetting(checkedTimeout) accessor headersTimeout: number = HttpDefaults.headersTimeoutMs;

  /** How long a kept-alive connection may wait idle for its next request, in ms (default 5000; 0 never closes it). */
  @checkedSetting(checkedTimeout) accessor keepAliveTimeout: number = HttpDefaults.keepAliveTimeoutMs;

  /**
   * The time a request body may take, in ms, before the data rate counts (default 10000; 0 disables the
   * watch). With `minBodyDataRate` it sets a minimum rate, not a cap on the whole request: the allowance
   * grows by one second for every `minBodyDataRate` bytes received, so an upload that keeps progressing at
   * that rate is never cut, however long it is. A body slower than that is answered 408 and its connection closed.
   */
  @checkedSetting(checkedTimeout) accessor bodyTimeout: number = HttpDefaults.bodyTimeoutMs;

  /** The body bytes that earn one more second of `bodyTimeout` (default 512, that is 512 bytes per second; 0: no credit). */
  @checkedSetting(checkedTimeout) accessor minBodyDataRate: number = HttpDefaults.minBodyDataRate;

  /**
   * The peers whose `X-Forwarded-For` gives `HttpRequest.clientIp`: IPv4 and IPv6 addresses and
   * CIDR ranges such as `10.0.0.0/8`. Default the loopback peers, `127.0.0.0/8` and `::1` (their
   * `::ffff:`-mapped forms included); an empty list believes no peer. An invalid entry throws `HttpServerError`.
   */
  @checkedSetting(checkedProxies) accessor trustedProxies: readonly string[] = HttpDefaults.trustedProxies;

  /** Asked before a log entry is built; false skips it, with no copy and no queueing. */
  @setting accessor onCanLog: ((request: HttpRequest) => boolean) | undefined;

  /** Returns the text to log for a request or response body, asked once for each. */
  @setting accessor onRedactContent: ((request: HttpRequest, content: string) => string) | undefined;

  /**
   * Serve `GET <base>/live` and `GET <base>/ready` for load balancers, anonymous whatever the
   * authentication (default false). `/live` answers `{"status":"ok"}` while the process answers at all;
   * `/ready` answers it when `readiness` (if set) succeeds and the server is not stopping, else 503 with a
   * reason. An application route at the same address is refused at `start()` as a duplicate.
   */
  @setting accessor balancerRoutes = false;

  /** What `/ready` asks before it answers 200 (the database is reachable...); undefined: nothing but draining. */
  @setting accessor readiness: HttpReadiness | undefined;

  /** How long a readiness check may take before `/ready` answers 503, in ms (default 2000). */
  @checkedSetting(checkedDuration) accessor readinessTimeout: number = HttpDefaults.readinessTimeoutMs;

  #metrics: Required<HttpMetricsOptions> | undefined;

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
    refuseWhileRunning(this, "metrics");
    this.#metrics = value === undefined ? undefined : checkedMetricsOptions(value);
  }

  /** The metrics settings as checked, every default filled in. @internal */
  protected get checkedMetrics(): Required<HttpMetricsOptions> | undefined {
    return this.#metrics;
  }

  /**
   * OpenTelemetry tracing (docs/operations.md), off by default: a server span per request named by its route
   * template, a client span per SQL statement, the parent taken from an incoming `traceparent`. Spans go to
   * the tracer provider the application registers (the OpenTelemetry SDK); `start()` loads the optional peer
   * dependency `@opentelemetry/api`, and without it tracing is a no-op.
   */
  @setting accessor tracing = false;

  /**
   * Where the rate-limit counts are kept: in this process by default (a fresh `MemoryRateLimitStore` at
   * every start), or a `RedisRateLimitStore` so that several processes share one budget per client.
   */
  @setting accessor rateLimitStore: HttpRateLimitStore | undefined;

  /**
   * How long a shared rate-limit store may take to count a request, in ms (default 500; 0: no bound). A store
   * that fails or answers later (Redis away, its client holding the command until it reconnects) gets the
   * request answered 503 with `Retry-After`, the cause logged, and the handler not run.
   */
  @checkedSetting(checkedDuration) accessor rateLimitStoreTimeout: number = HttpDefaults.rateLimitStoreTimeoutMs;

  /**
   * The slow request log (docs/operations.md), off by default (0): a request that takes at least this many
   * milliseconds has a response log record that carries its duration and its SQL statements with theirs
   * (the texts only: parameter values are never logged). Needs a log writer to show anywhere.
   */
  @checkedSetting(checkedDuration) accessor slowRequestThreshold = 0;

  readonly #bindAddresses: string[] = [];

  /** The bind addresses added so far. */
  get bindAddresses(): readonly string[] {
    return [...this.#bindAddresses];
  }

  /**
   * Adds a listening address: an IPv4 or IPv6 literal, without host name, port or brackets. With none the
   * server listens on every IPv4 interface; `::` listens on every IPv6 interface.
   */
  addBindAddress(address: string): void {
    refuseWhileRunning(this, "addBindAddress");
    if (isIP(address) === 0) throw new HttpServerError(HttpMessages.invalidBindAddress(address));
    if (this.#bindAddresses.some((known) => known.toLowerCase() === address.toLowerCase())) {
      throw new HttpServerError(HttpMessages.duplicateBindAddress(address));
    }
    this.#bindAddresses.push(address);
  }
}
