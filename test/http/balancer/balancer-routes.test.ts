import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { HttpAuthentication } from "../../../src/http/auth/http-authentication.js";
import type { HttpReadiness } from "../../../src/http/balancer/http-readiness.js";
import { HttpController } from "../../../src/http/exchange/http-controller.js";
import { HttpServerError, HttpUnauthorizedError } from "../../../src/http/exchange/http-errors.js";
import { Get, Uri } from "../../../src/http/routing/route-decorators.js";
import { ask, sleep, started } from "../http-test-client.js";

class Ctx {}

class RefuseEveryone extends HttpAuthentication<Ctx> {
  override async check(): Promise<void> {
    throw new HttpUnauthorizedError();
  }
}

@Uri("/slow")
class SlowController extends HttpController<Ctx> {
  @Get()
  async slow(): Promise<unknown> {
    await sleep(300);
    return { done: true };
  }
}

/** A readiness the test switches: ready, failing, or hanging. */
class SwitchedReadiness implements HttpReadiness {
  mode: "ready" | "failing" | "hanging" = "ready";
  calls = 0;
  check(): Promise<void> {
    this.calls++;
    if (this.mode === "failing") return Promise.reject(new Error("secret connection detail"));
    if (this.mode === "hanging") return new Promise(() => {});
    return Promise.resolve();
  }
}

describe("balancer routes", () => {
  test("live and ready answer ok anonymously at the base URI even when every other route needs authentication", async () => {
    const server = await started(Ctx, (s) => {
      s.baseUri = "/api";
      s.registerAuthentication(RefuseEveryone);
      s.registerController(SlowController);
      s.balancerRoutes = true;
    });
    try {
      const live = await ask(server.port, "/api/live");
      assert.equal(live.status, 200);
      assert.deepEqual(live.json, { status: "ok" });
      const ready = await ask(server.port, "/api/ready");
      assert.equal(ready.status, 200);
      assert.deepEqual(ready.json, { status: "ok" });
      assert.equal((await ask(server.port, "/api/slow")).status, 401);
    } finally {
      await server.stop();
    }
  });

  test("without balancerRoutes there is no live or ready route", async () => {
    const server = await started(Ctx, (s) => {
      s.allowAnonymous = true;
      s.registerController(SlowController);
    });
    try {
      assert.equal((await ask(server.port, "/live")).status, 404);
      assert.equal((await ask(server.port, "/ready")).status, 404);
    } finally {
      await server.stop();
    }
  });

  test("ready answers 503 with a fixed reason and Retry-After while the readiness check fails, and live stays ok", async () => {
    const readiness = new SwitchedReadiness();
    const server = await started(Ctx, (s) => {
      s.allowAnonymous = true;
      s.balancerRoutes = true;
      s.readiness = readiness;
    });
    try {
      assert.equal((await ask(server.port, "/ready")).status, 200);
      readiness.mode = "failing";
      const failing = await ask(server.port, "/ready");
      assert.equal(failing.status, 503);
      assert.deepEqual(failing.json, { status: 503, message: "Not ready: the readiness check failed." });
      assert.equal(failing.headers["retry-after"], "1");
      assert.doesNotMatch(failing.text, /secret/);
      assert.equal((await ask(server.port, "/live")).status, 200);
      readiness.mode = "ready";
      assert.equal((await ask(server.port, "/ready")).status, 200);
      assert.equal(readiness.calls, 3);
    } finally {
      await server.stop();
    }
  });

  test("a readiness check that does not answer in time is a 503 after readinessTimeout", async () => {
    const readiness = new SwitchedReadiness();
    readiness.mode = "hanging";
    const server = await started(Ctx, (s) => {
      s.allowAnonymous = true;
      s.balancerRoutes = true;
      s.readiness = readiness;
      s.readinessTimeout = 200;
    });
    try {
      const begun = Date.now();
      const answer = await ask(server.port, "/ready");
      const took = Date.now() - begun;
      assert.equal(answer.status, 503);
      assert.deepEqual(answer.json, { status: 503, message: "Not ready: the readiness check did not answer within 200 ms." });
      assert.ok(took >= 180 && took < 20_000, `answered after ${took} ms`);
    } finally {
      await server.stop();
    }
  });

  test("while stop() drains, ready answers 503 and other requests are still served on kept-alive connections, then the port closes", async () => {
    const server = await started(Ctx, (s) => {
      s.allowAnonymous = true;
      s.balancerRoutes = true;
      s.registerController(SlowController);
      s.drainDelay = 600;
    });
    const port = server.port;
    const stopping = server.stop();
    assert.equal(server.isDraining, true);
    const ready = await ask(port, "/ready");
    assert.equal(ready.status, 503);
    assert.deepEqual(ready.json, { status: 503, message: "Not ready: the server is stopping." });
    const live = await ask(port, "/live");
    assert.equal(live.status, 200);
    const slow = await ask(port, "/slow", { headers: { Connection: "keep-alive" } });
    assert.equal(slow.status, 200);
    assert.equal(slow.headers.connection, "keep-alive");
    await stopping;
    assert.equal(server.isDraining, false);
    await assert.rejects(ask(port, "/live"), /ECONNREFUSED/);
  });

  test("an application route at live is refused at start as a duplicate", async () => {
    @Uri("/live")
    class OwnLive extends HttpController<Ctx> {
      @Get()
      live(): unknown {
        return {};
      }
    }
    await assert.rejects(
      started(Ctx, (s) => {
        s.allowAnonymous = true;
        s.balancerRoutes = true;
        s.registerController(OwnLive);
      }),
      HttpServerError,
    );
  });

  test("a negative readiness timeout is refused", () => {
    return started(Ctx, (s) => {
      s.allowAnonymous = true;
      assert.throws(() => {
        s.readinessTimeout = -1;
      }, HttpServerError);
    }).then((server) => server.stop());
  });
});
