import { HttpError, HttpServerError, HttpServiceUnavailableError } from "../exchange/http-errors.js";
import { HttpStatus } from "../exchange/http-messages.js";
import type { HttpRequest } from "../exchange/http-request.js";
import type { HttpResponse } from "../exchange/http-response.js";
import { OperationsMessages } from "./operations-messages.js";
import type { HttpRateLimitStore, RateLimitCount } from "./rate-limit-store.js";

/**
 * One rate limit (`HttpServer.addRateLimit`): at most `limit` requests per `windowSeconds` per client, on
 * every route or on one. A client is its address (`by: "ip"`, through the trusted-proxy rule, decided before
 * authentication, so that a flood of bad credentials is limited too) or its authenticated user
 * (`by: "user"`, decided after authentication; an anonymous request counts by its address).
 */
export interface HttpRateLimit {
  /** The policy's name in `RateLimit-Policy` and `RateLimit`: letters, digits, `_` and `-`, distinct per server. */
  readonly name: string;
  /** The requests allowed per window (a positive integer). */
  readonly limit: number;
  /** The window, in seconds (a positive integer); it starts at a client's first request. */
  readonly windowSeconds: number;
  /** Whose budget it is. */
  readonly by: "ip" | "user";
  /** Only this route: its method and template as registered (`POST /api/logon`, `GET /api/companies/?`); absent: every request. */
  readonly route?: string;
}

/** The headers of a 429 answer. */
export interface TooManyRequestsHeaders {
  readonly "Retry-After": string;
  readonly "RateLimit-Policy": string;
  readonly RateLimit: string;
}

/** A request refused by a rate limit: 429 with `Retry-After` and the rate-limit headers. */
export class HttpTooManyRequestsError extends HttpError {
  /** The headers of the answer. */
  readonly headerValues: TooManyRequestsHeaders;
  /**
   * @param retryAfter seconds until the window resets. @param policy the `RateLimit-Policy` value.
   * @param state the `RateLimit` value.
   */
  constructor(retryAfter: number, policy: string, state: string) {
    super(HttpStatus.tooManyRequests, OperationsMessages.tooManyRequests(retryAfter));
    this.headerValues = { "Retry-After": String(retryAfter), "RateLimit-Policy": policy, RateLimit: state };
  }
}

const policyName = /^[A-Za-z0-9_-]{1,64}$/;

/** A limit checked and completed. @internal */
export function checkedRateLimit(limit: HttpRateLimit, known: readonly HttpRateLimit[]): HttpRateLimit {
  if (!policyName.test(limit.name ?? "")) throw new HttpServerError(OperationsMessages.invalidRateLimitName(String(limit.name)));
  if (known.some((other) => other.name === limit.name)) throw new HttpServerError(OperationsMessages.duplicateRateLimit(limit.name));
  if (!Number.isSafeInteger(limit.limit) || limit.limit < 1)
    throw new HttpServerError(OperationsMessages.invalidRateLimitValue("limit", limit.limit));
  if (!Number.isSafeInteger(limit.windowSeconds) || limit.windowSeconds < 1)
    throw new HttpServerError(OperationsMessages.invalidRateLimitValue("windowSeconds", limit.windowSeconds));
  if (limit.by !== "ip" && limit.by !== "user") throw new HttpServerError(OperationsMessages.invalidRateLimitBy(String(limit.by)));
  const route = limit.route?.trim().replace(/\s+/, " ");
  if (route !== undefined && !/^[A-Z]+ \/\S*$/.test(route)) throw new HttpServerError(OperationsMessages.invalidRateLimitRoute(route));
  return Object.freeze({ name: limit.name, limit: limit.limit, windowSeconds: limit.windowSeconds, by: limit.by, route });
}

/** One limit's state after a request's hit. */
interface Applied {
  readonly limit: HttpRateLimit;
  readonly count: RateLimitCount;
}

/**
 * Checks a request against the limits that apply to it, in two steps: those by address before
 * authentication, those by user after it. Answers nothing when a step has no limit, the step's verdict
 * synchronously with the memory store, and a promise with a shared one. Sets `RateLimit-Policy` and
 * `RateLimit` on the response (the limits that applied, the one nearest to its end first in `RateLimit`);
 * over a limit, throws `HttpTooManyRequestsError`. A store that fails, or does not answer within
 * `storeTimeout` ms, fails the request with `HttpServiceUnavailableError` (503): a request is never let
 * through uncounted, and never left waiting for a store that is away.
 * @internal
 */
export class RateLimiter {
  readonly #byIp: readonly HttpRateLimit[];
  readonly #byUser: readonly HttpRateLimit[];
  readonly #store: HttpRateLimitStore;
  readonly #storeTimeout: number;

  /** @param storeTimeout how long an asynchronous store may take, in ms (0: no bound). */
  constructor(limits: readonly HttpRateLimit[], store: HttpRateLimitStore, storeTimeout: number) {
    this.#byIp = limits.filter((limit) => limit.by === "ip");
    this.#byUser = limits.filter((limit) => limit.by === "user");
    this.#store = store;
    this.#storeTimeout = storeTimeout;
  }

  /** The step before authentication. */
  beforeAuthentication(request: HttpRequest, response: HttpResponse, route: string): void | Promise<void> {
    return this.#check(this.#byIp, request, response, route);
  }

  /** The step after authentication. */
  afterAuthentication(request: HttpRequest, response: HttpResponse, route: string): void | Promise<void> {
    return this.#check(this.#byUser, request, response, route);
  }

  /** Releases the store. */
  close(): void {
    this.#store.close?.();
  }

  #check(limits: readonly HttpRateLimit[], request: HttpRequest, response: HttpResponse, route: string): void | Promise<void> {
    const applying = limits.filter((limit) => limit.route === undefined || limit.route === route);
    if (applying.length === 0) return;
    const counts: (RateLimitCount | Promise<RateLimitCount>)[] = [];
    try {
      for (const limit of applying) counts.push(this.#store.hit(this.#keyOf(limit, request), limit.windowSeconds * 1000));
    } catch (error) {
      throw storeFailure(error);
    }
    if (counts.every((count): count is RateLimitCount => !(count instanceof Promise))) {
      return this.#decide(applying, counts, response);
    }
    const timeout = this.#storeTimeout;
    if (timeout === 0) {
      return Promise.all(counts).then(
        (settled) => this.#decide(applying, settled, response),
        (error: unknown) => {
          throw storeFailure(error);
        },
      );
    }
    return new Promise<void>((resolve, reject) => {
      // A store that does not answer (Redis away, its client queueing commands) costs the request this bound,
      // not a hang; its late answer, or failure, is then ignored.
      const timer = setTimeout(() => reject(new HttpServiceUnavailableError(OperationsMessages.rateLimitStoreTimedOut(timeout))), timeout);
      Promise.all(counts).then(
        (settled) => {
          clearTimeout(timer);
          try {
            this.#decide(applying, settled, response);
            resolve();
          } catch (error) {
            reject(error);
          }
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(storeFailure(error));
        },
      );
    });
  }

  #keyOf(limit: HttpRateLimit, request: HttpRequest): string {
    const user = limit.by === "user" ? request.user : undefined;
    return user === undefined ? `${limit.name}:ip:${request.clientIp}` : `${limit.name}:user:${user.tenant ?? ""}:${user.username}`;
  }

  #decide(limits: readonly HttpRateLimit[], counts: readonly RateLimitCount[], response: HttpResponse): void {
    const applied: Applied[] = limits.map((limit, i) => ({ limit, count: counts[i] }));
    const previousPolicy = response.header("RateLimit-Policy");
    const previous = response.header("RateLimit");
    const policy = applied.map(({ limit }) => `"${limit.name}";q=${limit.limit};w=${limit.windowSeconds}`).join(", ");
    applied.sort((a, b) => remaining(a) - remaining(b));
    const state = applied.map((entry) => `"${entry.limit.name}";r=${remaining(entry)};t=${resetSeconds(entry.count)}`).join(", ");
    const policies = previousPolicy === undefined ? policy : `${previousPolicy}, ${policy}`;
    const states = previous === undefined ? state : `${previous}, ${state}`;
    const exceeded = applied.filter((entry) => entry.count.count > entry.limit.limit);
    if (exceeded.length > 0) {
      throw new HttpTooManyRequestsError(Math.max(...exceeded.map((entry) => resetSeconds(entry.count))), policies, states);
    }
    response.setHeader("RateLimit-Policy", policies);
    response.setHeader("RateLimit", states);
  }
}

function remaining(entry: Applied): number {
  return Math.max(0, entry.limit.limit - entry.count.count);
}

function resetSeconds(count: RateLimitCount): number {
  return Math.max(1, Math.ceil(count.resetMs / 1000));
}

function storeFailure(error: unknown): HttpError {
  return new HttpServiceUnavailableError(OperationsMessages.rateLimitStoreFailed, { cause: error });
}
