import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { HttpAuthentication } from "../../src/http/auth/http-authentication.js";
import { HttpController } from "../../src/http/exchange/http-controller.js";
import { HttpServerError } from "../../src/http/exchange/http-errors.js";
import { HttpServer } from "../../src/http/server/http-server.js";
import { Area, AuthorizationType, Get, HttpAuthorizationType, Uri } from "../../src/http/routing/route-decorators.js";
import { runningServers } from "../../src/http/logging/running-servers.js";
import { ask } from "./http-test-client.js";
import { request } from "node:http";

class Ctx {}

class NobodyAuthentication extends HttpAuthentication<Ctx> {
  check(): void {}
}

@Uri("/ping")
@AuthorizationType(HttpAuthorizationType.None)
class PingController extends HttpController<Ctx> {
  @Get()
  ping(): unknown {
    return "pong";
  }
}

@Uri("/secure")
class AreaController extends HttpController<Ctx> {
  @Get()
  @Area("admin")
  get(): void {}
}

@Uri("/contradiction")
class ContradictionController extends HttpController<Ctx> {
  @Get("x")
  @Area("admin")
  @AuthorizationType(HttpAuthorizationType.None)
  get(): void {}
}

@Uri("/inherited-none")
@AuthorizationType(HttpAuthorizationType.None)
class InheritedNoneController extends HttpController<Ctx> {
  @Get()
  @Area("admin")
  get(): void {}
}

function refused(error: unknown, pattern: RegExp): boolean {
  return error instanceof HttpServerError && pattern.test(error.message);
}

function newServer(): HttpServer<Ctx> {
  const server = new HttpServer(Ctx);
  server.port = 0;
  server.addBindAddress("127.0.0.1");
  return server;
}

describe("the server's settings and lifecycle", () => {
  test("start runs the start checks in order before it listens, and a failing check keeps the server stopped", async () => {
    const server = newServer();
    server.allowAnonymous = true;
    server.registerController(PingController);
    const ran: string[] = [];
    const refusal = new Error("the schema does not match");
    server.addStartCheck(() => {
      ran.push("first");
    });
    server.addStartCheck(async () => {
      ran.push("second");
      throw refusal;
    });
    await assert.rejects(server.start(), (error) => error === refusal);
    assert.deepEqual(ran, ["first", "second"]);
    assert.equal(server.isRunning, false);
    assert.equal(server.port, 0, "nothing was bound");
    const passing = newServer();
    passing.allowAnonymous = true;
    passing.registerController(PingController);
    passing.addStartCheck(async () => {
      ran.push("passing");
    });
    await passing.start();
    try {
      assert.equal((await ask(passing.port, "/ping")).status, 200);
      assert.throws(
        () => passing.addStartCheck(() => {}),
        (error) => refused(error, /addStartCheck cannot be changed while the server is running/),
      );
    } finally {
      await passing.stop();
    }
  });

  test("start refuses to run without an authentication class or allowAnonymous", async () => {
    const server = newServer();
    server.registerController(PingController);
    await assert.rejects(server.start(), (error) => refused(error, /No authentication class/));
    assert.equal(server.isRunning, false);
    server.allowAnonymous = true;
    await server.start();
    await server.stop();
  });

  test("start refuses an area when no authentication class is registered, even with allowAnonymous", async () => {
    const server = newServer();
    server.allowAnonymous = true;
    server.registerController(AreaController);
    await assert.rejects(server.start(), (error) => refused(error, /GET \/secure .*requires an area/));
  });

  test("start refuses a route carrying both @Area and @AuthorizationType(None), naming it", async () => {
    for (const controller of [ContradictionController, InheritedNoneController]) {
      const server = newServer();
      server.registerAuthentication(NobodyAuthentication);
      server.registerController(controller);
      await assert.rejects(server.start(), (error) => refused(error, new RegExp(`${controller.name}\\.get.*both @Area`)));
    }
  });

  test("a base URI carrying a scheme is refused", () => {
    const server = newServer();
    assert.throws(
      () => (server.baseUri = "http://example.com/api"),
      (error) => refused(error, /scheme/),
    );
    server.baseUri = "";
    assert.equal(server.baseUri, "");
    server.baseUri = "v1/";
    assert.equal(server.baseUri, "/v1");
  });

  test("bind addresses accept IPv4 and IPv6 literals only, once each", () => {
    const server = new HttpServer(Ctx);
    server.addBindAddress("127.0.0.1");
    server.addBindAddress("::1");
    for (const bad of ["localhost", "127.0.0.1:80", "[::1]", "example.com", "", "300.1.1.1"]) {
      assert.throws(
        () => server.addBindAddress(bad),
        (error) => refused(error, /not an IPv4 or IPv6 literal/),
        bad,
      );
    }
    assert.throws(
      () => server.addBindAddress("127.0.0.1"),
      (error) => refused(error, /already added/),
    );
    assert.deepEqual(server.bindAddresses, ["127.0.0.1", "::1"]);
  });

  test("settings refuse changes while running and accept them again after stop", async () => {
    const server = newServer();
    server.allowAnonymous = true;
    server.registerController(PingController);
    await server.start();
    const changes: (() => void)[] = [
      () => server.addBindAddress("127.0.0.2"),
      () => (server.port = 1),
      () => (server.baseUri = "/x"),
      () => (server.allowAnonymous = false),
      () => (server.allowMethodOverride = true),
      () => (server.maxRequestContentLength = 5),
      () => (server.onCanLog = () => true),
      () => (server.onRedactContent = (_request, content) => content),
      () => server.registerController(AreaController),
      () => server.registerAuthentication(NobodyAuthentication),
    ];
    for (const change of changes) assert.throws(change, (error) => refused(error, /while the server is running/));
    await assert.rejects(server.start(), (error) => refused(error, /already running/));
    await server.stop();
    server.maxRequestContentLength = 5;
    server.baseUri = "/x";
    assert.equal(server.maxRequestContentLength, 5);
  });

  test("the running-server count follows start and stop", async () => {
    const before = runningServers.count;
    const server = newServer();
    server.allowAnonymous = true;
    server.registerController(PingController);
    await server.start();
    assert.equal(runningServers.count, before + 1);
    await server.stop();
    assert.equal(runningServers.count, before);
    await server.stop();
    assert.equal(runningServers.count, before, "a second stop changes nothing");
  });

  test("a stopped server refuses connections and can start again", async () => {
    const server = newServer();
    server.allowAnonymous = true;
    server.registerController(PingController);
    await server.start();
    const port = server.port;
    assert.notEqual(port, 0);
    assert.equal((await ask(port, "/ping")).json, "pong");
    await server.stop();
    await assert.rejects(ask(port, "/ping"), /ECONNREFUSED/);
    server.port = port;
    await server.start();
    assert.equal((await ask(port, "/ping")).json, "pong");
    await server.stop();
  });

  test("await using stops a running server", async () => {
    let port = 0;
    {
      await using server = newServer();
      server.allowAnonymous = true;
      server.registerController(PingController);
      await server.start();
      port = server.port;
      assert.equal((await ask(port, "/ping")).json, "pong");
    }
    await assert.rejects(ask(port, "/ping"), /ECONNREFUSED/);
  });

  test("a port already in use makes start fail and leaves the server stopped", async () => {
    const first = newServer();
    first.allowAnonymous = true;
    first.registerController(PingController);
    await first.start();
    const second = new HttpServer(Ctx);
    second.port = first.port;
    second.addBindAddress("127.0.0.1");
    second.allowAnonymous = true;
    const before = runningServers.count;
    await assert.rejects(second.start(), /EADDRINUSE/);
    assert.equal(second.isRunning, false);
    assert.equal(runningServers.count, before);
    await first.stop();
  });

  test("every bind address listens on the same port, IPv6 included", async () => {
    const server = new HttpServer(Ctx);
    server.port = 0;
    server.addBindAddress("127.0.0.1");
    server.addBindAddress("::1");
    server.allowAnonymous = true;
    server.registerController(PingController);
    await server.start();
    try {
      assert.equal((await ask(server.port, "/ping")).json, "pong");
      const v6 = await new Promise<string>((resolve, reject) => {
        request({ host: "::1", port: server.port, path: "/ping", agent: false }, (res) => {
          let text = "";
          res.on("data", (chunk) => (text += chunk));
          res.on("end", () => resolve(text));
        })
          .on("error", reject)
          .end();
      });
      assert.equal(v6, '"pong"');
    } finally {
      await server.stop();
    }
  });

  test("with no bind address the server listens on every IPv4 interface", async () => {
    const server = new HttpServer(Ctx);
    server.port = 0;
    server.allowAnonymous = true;
    server.registerController(PingController);
    await server.start();
    try {
      assert.equal((await ask(server.port, "/ping")).json, "pong");
    } finally {
      await server.stop();
    }
  });
});
