/** A client's count in its current window. */
export interface RateLimitCount {
  /** Requests counted in the window so far, this one included. */
  readonly count: number;
  /** Milliseconds until the window ends and the count starts again. */
  readonly resetMs: number;
}

/**
 * Where rate-limit counts are kept (`HttpServer.rateLimitStore`): in this process by default
 * (`MemoryRateLimitStore`), or shared by several processes (`RedisRateLimitStore`). A window starts at a
 * key's first hit and lasts `windowMs`; every hit within it counts.
 */
export interface HttpRateLimitStore {
  /** Counts one hit of `key` and answers the window's count and the time left; may answer a promise. */
  hit(key: string, windowMs: number): RateLimitCount | Promise<RateLimitCount>;
  /** Releases what the store holds (a timer); called when the server stops. Optional. */
  close?(): void;
}

/** How many keys a memory store holds before it sweeps the expired ones. */
const sweepAbove = 10000;

/**
 * Counts in this process: a map of windows, swept of expired keys as it grows, so that a stream of new
 * clients cannot grow it without bound. Answers synchronously (no promise on the request path).
 */
export class MemoryRateLimitStore implements HttpRateLimitStore {
  readonly #windows = new Map<string, { count: number; resetAt: number }>();

  /** @inheritdoc */
  hit(key: string, windowMs: number): RateLimitCount {
    const now = Date.now();
    let window = this.#windows.get(key);
    if (window === undefined || window.resetAt <= now) {
      if (window === undefined && this.#windows.size >= sweepAbove) this.#sweep(now);
      window = { count: 0, resetAt: now + windowMs };
      this.#windows.set(key, window);
    }
    window.count++;
    return { count: window.count, resetMs: window.resetAt - now };
  }

  #sweep(now: number): void {
    for (const [key, window] of this.#windows) if (window.resetAt <= now) this.#windows.delete(key);
  }
}

/**
 * The part of a Redis client the store uses: node-redis's `eval` (`createClient()` from the `redis` package,
 * v4 or later). Any client with this method works.
 */
export interface RedisEvalClient {
  /** Runs a Lua script atomically on the server. */
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** Counts a hit and starts the window on the first one, atomically: the count and the milliseconds left. */
const hitScript = `local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

/**
 * Counts in Redis, so that several Tenon processes (workers, machines behind a balancer) share one budget per
 * client. Each hit is one round trip running a small script (INCR, and PEXPIRE on a window's first hit). The
 * application creates and connects the client (`createClient({ url })` from `redis`) and closes it after
 * the server stops. When Redis fails, the request is answered 503 (fail closed), never let through unlimited.
 */
export class RedisRateLimitStore implements HttpRateLimitStore {
  readonly #client: RedisEvalClient;
  readonly #prefix: string;

  /** @param client a connected client. @param prefix put before every key (default `tenon:ratelimit:`). */
  constructor(client: RedisEvalClient, prefix = "tenon:ratelimit:") {
    this.#client = client;
    this.#prefix = prefix;
  }

  /** @inheritdoc */
  async hit(key: string, windowMs: number): Promise<RateLimitCount> {
    const reply = (await this.#client.eval(hitScript, { keys: [this.#prefix + key], arguments: [String(windowMs)] })) as [number, number];
    return { count: Number(reply[0]), resetMs: Number(reply[1]) };
  }
}
