import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { HttpAuthentication } from "../../../src/http/auth/http-authentication.js";
import { HttpController } from "../../../src/http/exchange/http-controller.js";
import { HttpError, HttpServerError, HttpUnauthorizedError } from "../../../src/http/exchange/http-errors.js";
import type { HttpRequest } from "../../../src/http/exchange/http-request.js";
import { HttpServer } from "../../../src/http/server/http-server.js";
import { HttpUser } from "../../../src/http/exchange/http-user.js";
import type { HttpRateLimit } from "../../../src/http/operations/rate-limiter.js";
import { AuthorizationType, Get, HttpAuthorizationType, Post, Uri } from "../../../src/http/routing/route-decorators.js";
import { ask, started } from "../http-test-client.js";

class Ctx {}

class NameAuthentication extends HttpAuthentication<Ctx> {
  check(request: HttpRequest): void {
    const name = /^User (\w+)$/.exec(request.header("authorization") ?? "")?.[1];
    if (name === undefined) throw new HttpUnauthorizedError();
    request.user = new HttpUser(name, []);
  }
}

@Uri("/things")
class ThingsController extends HttpController<Ctx> {
  @Get()
  list(): unknown {
    return [];
  }

  @Get("?")
  one(id: number): unknown {
    return { id };
  }
}

@Uri("/trouble")
class TroubleController extends HttpController<Ctx> {
  @Post("invalid")
  invalid(): unknown {
    throw new HttpError(422, "Nothing here is valid.");
  }

  @Get("broken")
  broken(): unknown {
    throw new Error("a programming error");
  }
}

@Uri("/logon")
class LogonController extends HttpController<Ctx> {
  @Post()
  @AuthorizationType(HttpAuthorizationType.None)
  logon(): unknown {
    return { token: "t" };
  }
}

async function serverWith(limits: readonly HttpRateLimit[], authenticated = false): Promise<HttpServer<Ctx>> {
  return started(Ctx, (s) => {
    s.baseUri = "/api";
    if (authenticated) s.registerAuthentication(NameAuthentication);
    else s.allowAnonymous = true;
    s.registerController(ThingsController);
    s.registerController(TroubleController);
    s.registerController(LogonController);
    for (const limit of limits) s.addRateLimit(limit);
  });
}

describe("rate limits", () => {
  const servers: HttpServer<Ctx>[] = [];
  after(async () => {
    for (const server of servers) await server.stop();
  });
  const serve = async (limits: readonly HttpRateLimit[], authenticated = false): Promise<HttpServer<Ctx>> => {
    const server = await serverWith(limits, authenticated);
    servers.push(server);
    return server;
  };

  test("a client over its limit gets 429 with Retry-After, and every answer carries RateLimit-Policy and RateLimit", async () => {
    const server = await serve([{ name: "per-ip", limit: 3, windowSeconds: 60, by: "ip" }]);
    for (const remaining of [2, 1, 0]) {
      const answer = await ask(server.port, "/api/things");
      assert.equal(answer.status, 200);
      assert.equal(answer.headers["ratelimit-policy"], '"per-ip";q=3;w=60');
      assert.match(String(answer.headers.ratelimit), new RegExp(`^"per-ip";r=${remaining};t=(60|59)$`));
    }
    const refused = await ask(server.port, "/api/things/1");
    assert.equal(refused.status, 429);
    const retryAfter = Number(refused.headers["retry-after"]);
    assert.ok(retryAfter >= 59 && retryAfter <= 60, String(retryAfter));
    assert.deepEqual(refused.json, { status: 429, message: `Too many requests: try again in ${retryAfter} seconds.` });
    assert.equal(refused.headers["ratelimit-policy"], '"per-ip";q=3;w=60');
    assert.match(String(refused.headers.ratelimit), /^"per-ip";r=0;t=\d+$/);
  });

  test("error answers to a limited request carry RateLimit-Policy and RateLimit too: 400, 401, 404, 405, 422, 500", async () => {
    const server = await serve([{ name: "per-ip", limit: 100, windowSeconds: 60, by: "ip" }], true);
    const user = { authorization: "User ann" };
    const answers = [
      [401, await ask(server.port, "/api/things")],
      [400, await ask(server.port, "/api/things/abc", { headers: user })],
      [404, await ask(server.port, "/api/nowhere", { headers: user })],
      [405, await ask(server.port, "/api/things", { method: "DELETE", headers: user })],
      [422, await ask(server.port, "/api/trouble/invalid", { method: "POST", headers: user })],
      [500, await ask(server.port, "/api/trouble/broken", { headers: user })],
    ] as const;
    let remaining = 99;
    for (const [status, answer] of answers) {
      assert.equal(answer.status, status, answer.text);
      assert.equal(answer.headers["ratelimit-policy"], '"per-ip";q=100;w=60', `${status}`);
      assert.match(String(answer.headers.ratelimit), new RegExp(`^"per-ip";r=${remaining--};t=(60|59)$`), `${status}`);
    }
  });

  test("each client address has its own budget, through the trusted-proxy rule", async () => {
    const server = await serve([{ name: "per-ip", limit: 1, windowSeconds: 60, by: "ip" }]);
    assert.equal((await ask(server.port, "/api/things", { headers: { "X-Forwarded-For": "203.0.113.1" } })).status, 200);
    assert.equal((await ask(server.port, "/api/things", { headers: { "X-Forwarded-For": "203.0.113.1" } })).status, 429);
    assert.equal((await ask(server.port, "/api/things", { headers: { "X-Forwarded-For": "203.0.113.2" } })).status, 200);
  });

  test("a limit by address is decided before authentication: bad credentials are limited too", async () => {
    const server = await serve([{ name: "per-ip", limit: 2, windowSeconds: 60, by: "ip" }], true);
    assert.equal((await ask(server.port, "/api/things", { headers: { authorization: "wrong" } })).status, 401);
    assert.equal((await ask(server.port, "/api/things", { headers: { authorization: "wrong" } })).status, 401);
    assert.equal((await ask(server.port, "/api/things", { headers: { authorization: "User ann" } })).status, 429);
  });

  test("addresses no route answers count too, so probing is limited", async () => {
    const server = await serve([{ name: "per-ip", limit: 2, windowSeconds: 60, by: "ip" }]);
    assert.equal((await ask(server.port, "/api/nowhere/1")).status, 404);
    assert.equal((await ask(server.port, "/api/nowhere/2")).status, 404);
    assert.equal((await ask(server.port, "/api/nowhere/3")).status, 429);
  });

  test("a limit by user is decided after authentication, one budget per user from the same address", async () => {
    const server = await serve([{ name: "per-user", limit: 2, windowSeconds: 60, by: "user" }], true);
    const as = (user: string) => ask(server.port, "/api/things", { headers: { authorization: `User ${user}` } });
    assert.equal((await as("ann")).status, 200);
    const second = await as("ann");
    assert.equal(second.status, 200);
    assert.match(String(second.headers.ratelimit), /^"per-user";r=0;t=\d+$/);
    assert.equal((await as("ann")).status, 429);
    assert.equal((await as("bob")).status, 200);
    assert.equal((await ask(server.port, "/api/things")).status, 401, "an anonymous caller is told 401, not 429");
  });

  test("a limit on one route leaves the others alone; both limits show in the headers where both apply", async () => {
    const server = await serve([
      { name: "logon", limit: 1, windowSeconds: 30, by: "ip", route: "POST /api/logon" },
      { name: "all", limit: 100, windowSeconds: 60, by: "ip" },
    ]);
    const first = await ask(server.port, "/api/logon", { method: "POST" });
    assert.equal(first.status, 200);
    assert.equal(first.headers["ratelimit-policy"], '"logon";q=1;w=30, "all";q=100;w=60');
    assert.match(String(first.headers.ratelimit), /^"logon";r=0;t=\d+, "all";r=99;t=\d+$/);
    assert.equal((await ask(server.port, "/api/logon", { method: "POST" })).status, 429);
    const other = await ask(server.port, "/api/things");
    assert.equal(other.status, 200);
    assert.equal(other.headers["ratelimit-policy"], '"all";q=100;w=60');
  });

  test("a window starts again once it has passed", async () => {
    const server = await serve([{ name: "short", limit: 1, windowSeconds: 1, by: "ip" }]);
    assert.equal((await ask(server.port, "/api/things")).status, 200);
    const refused = await ask(server.port, "/api/things");
    assert.equal(refused.status, 429);
    assert.equal(refused.headers["retry-after"], "1");
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assert.equal((await ask(server.port, "/api/things")).status, 200);
  });

  test("a server without limits sends no rate-limit headers", async () => {
    const server = await serve([]);
    const answer = await ask(server.port, "/api/things");
    assert.equal(answer.headers["ratelimit-policy"], undefined);
    assert.equal(answer.headers.ratelimit, undefined);
  });
});

describe("rate limit settings", () => {
  const refused: [string, HttpRateLimit, RegExp][] = [
    ["a name with spaces", { name: "a b", limit: 1, windowSeconds: 1, by: "ip" }, /must be 1 to 64 letters/],
    ["a limit of 0", { name: "a", limit: 0, windowSeconds: 1, by: "ip" }, /limit must be a positive integer/],
    ["a fractional window", { name: "a", limit: 1, windowSeconds: 1.5, by: "ip" }, /windowSeconds must be a positive integer/],
    ["an unknown client kind", { name: "a", limit: 1, windowSeconds: 1, by: "host" as "ip" }, /must be 'ip' or 'user'/],
    ["a route without a method", { name: "a", limit: 1, windowSeconds: 1, by: "ip", route: "/api/things" }, /must be a method and a path/],
  ];
  for (const [what, limit, message] of refused) {
    test(`refuse ${what}`, () => {
      const server = new HttpServer(Ctx);
      assert.throws(
        () => server.addRateLimit(limit),
        (error: unknown) => error instanceof HttpServerError && message.test(error.message),
      );
      assert.deepEqual(server.rateLimits, []);
    });
  }

  test("refuse a second limit of the same name", () => {
    const server = new HttpServer(Ctx);
    server.addRateLimit({ name: "a", limit: 1, windowSeconds: 1, by: "ip" });
    assert.throws(() => server.addRateLimit({ name: "a", limit: 2, windowSeconds: 1, by: "user" }), /already added/);
  });

  test("start refuses a limit on a route that is not registered", async () => {
    const server = new HttpServer(Ctx);
    server.allowAnonymous = true;
    server.registerController(ThingsController);
    server.addRateLimit({ name: "typo", limit: 1, windowSeconds: 1, by: "ip", route: "GET /thingz" });
    await assert.rejects(
      server.start(),
      (error: unknown) => error instanceof HttpServerError && /not a registered route/.test(error.message),
    );
    assert.equal(server.isRunning, false);
  });

  test("limits cannot be added while the server runs", async () => {
    const server = await serverWith([]);
    try {
      assert.throws(() => server.addRateLimit({ name: "a", limit: 1, windowSeconds: 1, by: "ip" }), HttpServerError);
    } finally {
      await server.stop();
    }
  });

  test("a shared store gets 500 ms to count a request by default; a negative bound or a change while running is refused", async () => {
    const server = new HttpServer(Ctx);
    assert.equal(server.rateLimitStoreTimeout, 500);
    assert.throws(() => (server.rateLimitStoreTimeout = -1), HttpServerError);
    server.rateLimitStoreTimeout = 0;
    const running = await serverWith([]);
    try {
      assert.throws(() => (running.rateLimitStoreTimeout = 100), HttpServerError);
    } finally {
      await running.stop();
    }
  });
});
