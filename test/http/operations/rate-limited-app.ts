// A program for rate-limits-redis.test.ts: one Tenon process whose per-address limit is kept in Redis.
// Environment: REDIS_PREFIX (the test run's key prefix), LIMIT. Prints `LISTENING <port>`.
import { createClient } from "redis";
import { HttpController } from "../../../src/http/exchange/http-controller.js";
import { HttpServer } from "../../../src/http/server/http-server.js";
import { RedisRateLimitStore } from "../../../src/http/operations/rate-limit-store.js";
import { Get, Uri } from "../../../src/http/routing/route-decorators.js";

class Ctx {}

@Uri("/pid")
class PidController extends HttpController<Ctx> {
  @Get()
  pid(): unknown {
    return { pid: process.pid };
  }
}

const redis = createClient({ url: "redis://127.0.0.1:6379" });
await redis.connect();
const server = new HttpServer(Ctx);
server.port = 0;
server.addBindAddress("127.0.0.1");
server.allowAnonymous = true;
server.registerController(PidController);
server.rateLimitStore = new RedisRateLimitStore(redis, process.env.REDIS_PREFIX);
server.addRateLimit({ name: "shared", limit: Number(process.env.LIMIT), windowSeconds: 60, by: "ip" });
await server.start();
process.stdout.write(`LISTENING ${server.port}\n`);
process.once("SIGTERM", () => {
  void server.stop().then(async () => {
    await redis.quit();
    process.exit(0);
  });
});
