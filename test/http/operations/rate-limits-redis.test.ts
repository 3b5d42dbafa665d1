import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { createClient } from "redis";
import { HttpController } from "../../../src/http/exchange/http-controller.js";
import type { HttpServer } from "../../../src/http/server/http-server.js";
import { RedisRateLimitStore } from "../../../src/http/operations/rate-limit-store.js";
import { Get, Uri } from "../../../src/http/routing/route-decorators.js";
import { ask, sleep, started } from "../http-test-client.js";
import { startThrowawayRedis, throwawayRedisUnavailable, type ThrowawayRedis } from "../../support/throwaway-redis.js";
import { reportUnreachable } from "../../orm/engine-availability.js";

const app = fileURLToPath(new URL("./rate-limited-app.js", import.meta.url));
/** Every key of this run starts with it, so runs (and parallel suites) never share a budget. */
const prefix = `tenon:test:${randomUUID()}:`;

function startApp(limit: number): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [app], {
    env: { ...process.env, REDIS_PREFIX: prefix, LIMIT: String(limit) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  return new Promise((resolve, reject) => {
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      output += chunk;
      const match = /LISTENING (\d+)/.exec(output);
      if (match !== null) resolve({ child, port: Number(match[1]) });
    });
    child.once("exit", (code) => reject(new Error(`the app exited with ${code}: ${output}`)));
  });
}

class Ctx {}

@Uri("/things")
class ThingsController extends HttpController<Ctx> {
  @Get()
  list(): unknown {
    return [];
  }
}

describe("rate limits kept in Redis", () => {
  const redis = createClient({ url: "redis://127.0.0.1:6379" });
  const children: ChildProcess[] = [];

  before(async () => {
    await redis.connect();
  });

  after(async () => {
    for (const child of children) {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await once(child, "exit");
      }
    }
    for await (const keys of redis.scanIterator({ MATCH: `${prefix}*` })) if (keys.length > 0) await redis.del(keys);
    await redis.quit();
  });

  test("two Tenon processes share one budget per client", { timeout: 30000 }, async () => {
    const [first, second] = await Promise.all([startApp(5), startApp(5)]);
    children.push(first.child, second.child);
    const statuses: number[] = [];
    const pids = new Set<number>();
    for (let i = 0; i < 8; i++) {
      const answer = await ask(i % 2 === 0 ? first.port : second.port, "/pid");
      statuses.push(answer.status);
      if (answer.status === 200) {
        pids.add((answer.json as { pid: number }).pid);
        assert.match(String(answer.headers.ratelimit), new RegExp(`^"shared";r=${4 - i};t=\\d+$`));
      } else {
        assert.ok(Number(answer.headers["retry-after"]) >= 1);
      }
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429, 429]);
    assert.equal(pids.size, 2, "both processes answered");
    const keys: string[] = [];
    for await (const batch of redis.scanIterator({ MATCH: `${prefix}*` })) keys.push(...batch);
    assert.equal(keys.length, 1);
    const ttl = await redis.pTTL(keys[0]);
    assert.ok(ttl > 0 && ttl <= 60000, String(ttl));
  });

  test("when Redis fails, a limited request answers 503 and is not let through", async () => {
    const broken = createClient({ url: "redis://127.0.0.1:6379" });
    await broken.connect();
    const server: HttpServer<Ctx> = await started(Ctx, (s) => {
      s.allowAnonymous = true;
      s.registerController(ThingsController);
      s.rateLimitStore = new RedisRateLimitStore(broken, prefix);
      s.addRateLimit({ name: "failing", limit: 10, windowSeconds: 60, by: "ip" });
    });
    try {
      assert.equal((await ask(server.port, "/things")).status, 200);
      broken.destroy();
      const answer = await ask(server.port, "/things");
      assert.equal(answer.status, 503);
      assert.equal(answer.headers["retry-after"], "1");
      assert.deepEqual(answer.json, { status: 503, message: "Service temporarily unavailable: try again." });
    } finally {
      await server.stop();
    }
  });
});

/** Asks, and answers the status with the milliseconds it took. */
async function timed(port: number, path: string): Promise<{ status: number; retryAfter: unknown; ms: number }> {
  const began = Date.now();
  const answer = await ask(port, path);
  return { status: answer.status, retryAfter: answer.headers["retry-after"], ms: Date.now() - began };
}

const redisUnavailable = await throwawayRedisUnavailable();
if (redisUnavailable !== undefined) reportUnreachable("Redis", redisUnavailable, "rate-limit store timeout tests");
else {
  // A Redis of the test's own, killed and slowed at will. The client is node-redis with its defaults: while
  // Redis is away it queues every command until it has reconnected, so without a bound a request would wait
  // for Redis to come back (before the bound, a request then got no answer at all).
  describe("a Redis rate-limit store that does not answer", () => {
    let redis: ThrowawayRedis;
    let server: HttpServer<Ctx>;
    let client: ReturnType<typeof createClient>;

    before(async () => {
      redis = await startThrowawayRedis();
      client = createClient({ url: redis.url });
      client.on("error", () => {});
      await client.connect();
      server = await started(Ctx, (s) => {
        s.allowAnonymous = true;
        s.registerController(ThingsController);
        s.rateLimitStore = new RedisRateLimitStore(client, prefix);
        s.rateLimitStoreTimeout = 300;
        s.addRateLimit({ name: "bounded", limit: 1000, windowSeconds: 60, by: "ip" });
      });
    });
    after(async () => {
      await server?.stop();
      client?.destroy();
      await redis?.close();
    });

    test("a killed Redis gets every limited request answered 503 with Retry-After within the bound, and service resumes when it is back", async () => {
      assert.equal((await timed(server.port, "/things")).status, 200);
      await redis.stop("immediate");
      const during = [];
      for (let i = 0; i < 5; i++) during.push(await timed(server.port, "/things"));
      for (const outcome of during) {
        assert.equal(outcome.status, 503, JSON.stringify(outcome));
        assert.equal(outcome.retryAfter, "1");
        // 300 ms is the bound; the rest is a generous margin for a busy machine.
        assert.ok(outcome.ms < 10_000, `answered after ${outcome.ms} ms`);
      }
      await redis.start();
      let back = await timed(server.port, "/things");
      const deadline = Date.now() + 30_000;
      while (back.status !== 200 && Date.now() < deadline) {
        await sleep(200);
        back = await timed(server.port, "/things");
      }
      assert.equal(back.status, 200, "the client reconnected by itself and requests are counted again");
    });

    test("a Redis that answers too late (DEBUG SLEEP) gets the request answered 503 after the bound, not after Redis", async () => {
      const blocker = createClient({ url: redis.url });
      blocker.on("error", () => {});
      await blocker.connect();
      try {
        let redisAnswered = false;
        const sleeping = blocker.sendCommand(["DEBUG", "SLEEP", "3"]).then(() => {
          redisAnswered = true;
        });
        await sleep(100);
        const slow = await timed(server.port, "/things");
        // The order of events, not a time: the 503 came while Redis was still asleep.
        const beforeRedis = !redisAnswered;
        assert.equal(slow.status, 503, JSON.stringify(slow));
        assert.equal(slow.retryAfter, "1");
        await sleeping;
        assert.ok(beforeRedis, `answered after ${slow.ms} ms, when Redis had answered: not after the store's bound`);
        assert.equal((await timed(server.port, "/things")).status, 200);
      } finally {
        blocker.destroy();
      }
    });
  });
}
