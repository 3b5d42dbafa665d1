import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { clientIpOf, isLoopback, stripPort } from "../../src/http/exchange/client-ip.js";
import { HttpController } from "../../src/http/exchange/http-controller.js";
import type { HttpServer } from "../../src/http/server/http-server.js";
import { Delete, Get, Post, Put, Uri } from "../../src/http/routing/route-decorators.js";
import { ask, raw, started, statusesOf } from "./http-test-client.js";

let built = 0;
class Ctx {
  constructor() {
    built++;
  }
}

@Uri("/inspect")
class InspectController extends HttpController<Ctx> {
  @Get()
  get(): unknown {
    const r = this.request;
    return {
      method: r.method,
      sentMethod: r.sentMethod,
      overridden: r.isMethodOverridden,
      remoteIp: r.remoteIp,
      clientIp: r.clientIp,
      host: r.host,
      path: r.path,
      uri: r.uri,
      headers: r.headers.filter(([name]) => name.toLowerCase().startsWith("x-")),
      custom: r.header("X-CUSTOM"),
      params: r.params,
      contentType: r.contentType,
    };
  }
  @Post()
  post(): unknown {
    return "post";
  }
  @Put()
  put(): unknown {
    return `put (sent ${this.request.sentMethod})`;
  }
  @Delete()
  remove(): unknown {
    return `delete (sent ${this.request.sentMethod})`;
  }
}

function rawGet(path: string, headers: string[]): string {
  return `GET ${path} HTTP/1.1\r\n${headers.map((h) => h + "\r\n").join("")}\r\n`;
}

function bodyOf(text: string): unknown {
  return JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4));
}

describe("the request object", () => {
  let server: HttpServer<Ctx>;
  before(async () => {
    server = await started(Ctx, (s) => {
      s.allowAnonymous = true;
      s.allowMethodOverride = true;
      s.cors.allowOrigin = "https://app.example";
      s.cors.allowHeaders = "X-Tenant";
      s.cors.maxAge = 900;
      s.registerController(InspectController);
    });
  });
  after(() => server.stop());

  test("a repeated header keeps its first occurrence, names compared without case", async () => {
    const outcome = await raw(server.port, (write) =>
      write(
        rawGet("/inspect", [
          "Host: one.example",
          "Connection: close",
          "X-Custom: first",
          "x-custom: second",
          "X-CUSTOM: third",
          "X-Other: o",
          "host: two.example",
        ]),
      ),
    );
    const body = bodyOf(outcome.text) as { headers: [string, string][]; custom: string; host: string };
    assert.deepEqual(body.headers, [
      ["X-Custom", "first"],
      ["X-Other", "o"],
    ]);
    assert.equal(body.custom, "first");
    assert.equal(body.host, "one.example");
  });

  test("with many headers (past the linear search), repeats still keep their first occurrence", async () => {
    const many = Array.from({ length: 40 }, (_, i) => `X-H${i}: v${i}`);
    const outcome = await raw(server.port, (write) =>
      write(
        rawGet("/inspect", [
          "Host: one.example",
          "Connection: close",
          ...many,
          "x-h3: again",
          "X-Custom: first",
          "X-H39: again",
          "x-custom: second",
        ]),
      ),
    );
    const body = bodyOf(outcome.text) as { headers: [string, string][]; custom: string };
    assert.deepEqual(body.headers, [...Array.from({ length: 40 }, (_, i) => [`X-H${i}`, `v${i}`]), ["X-Custom", "first"]]);
    assert.equal(body.custom, "first");
  });

  test("path, uri and params describe the request target", async () => {
    const answer = await ask(server.port, "/inspect/?q=a%20b&token=t&q=second&empty=");
    const body = answer.json as { path: string; uri: string; params: [string, string][] };
    assert.equal(body.path, "/inspect/");
    assert.equal(body.uri, "/inspect/?q=a%20b&token=t&q=second&empty=");
    assert.deepEqual(body.params, [
      ["q", "a b"],
      ["token", "t"],
      ["empty", ""],
    ]);
  });

  test("behind a loopback proxy the client address is the last X-Forwarded-For entry", async () => {
    const answer = await ask(server.port, "/inspect", { headers: { "x-forwarded-for": "10.0.0.1, 203.0.113.7:5555" } });
    const body = answer.json as { remoteIp: string; clientIp: string };
    assert.match(body.remoteIp, /127\.0\.0\.1$/);
    assert.equal(body.clientIp, "203.0.113.7");
  });

  test("without X-Forwarded-For the client address is the peer", async () => {
    const body = (await ask(server.port, "/inspect")).json as { remoteIp: string; clientIp: string };
    assert.equal(body.clientIp, body.remoteIp);
  });

  test("the client-address rules: loopback forms, ports and brackets", () => {
    for (const address of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1", "::FFFF:127.0.0.2", "0:0:0:0:0:0:0:1"])
      assert.equal(isLoopback(address), true, address);
    for (const address of ["10.0.0.1", "::ffff:10.0.0.1", "::2", "128.0.0.1"]) assert.equal(isLoopback(address), false, address);
    assert.equal(stripPort("[2001:db8::1]:443"), "2001:db8::1");
    assert.equal(stripPort("[2001:db8::1]"), "2001:db8::1");
    assert.equal(stripPort("2001:db8::1"), "2001:db8::1");
    assert.equal(stripPort(" 198.51.100.4:80 "), "198.51.100.4");
    assert.equal(clientIpOf("10.1.1.1", "198.51.100.4"), "10.1.1.1", "a direct client cannot choose its address");
    assert.equal(clientIpOf("::ffff:127.0.0.1", "1.1.1.1, [2001:db8::2]:8080"), "2001:db8::2");
    assert.equal(clientIpOf("::1", " , "), "::1");
  });

  test("a method-override header on a POST resolves the route with the overridden method", async () => {
    for (const name of ["X-HTTP-Method-Override", "X-HTTP-Method", "X-METHOD-OVERRIDE"]) {
      const answer = await ask(server.port, "/inspect", { method: "POST", headers: { [name]: "delete" } });
      assert.equal(answer.json, "delete (sent POST)", name);
    }
    const get = await ask(server.port, "/inspect", { method: "POST", headers: { "x-http-method-override": "GET" } });
    assert.deepEqual((get.json as { method: string; sentMethod: string; overridden: boolean }).overridden, true);
  });

  test("a method-override header on another method is ignored", async () => {
    const answer = await ask(server.port, "/inspect", { method: "PUT", headers: { "x-http-method-override": "DELETE" } });
    assert.equal(answer.json, "put (sent PUT)");
  });

  test("a preflight is answered 200 with the CORS headers and builds no context, for any path", async () => {
    const before = built;
    for (const path of ["/inspect", "/not/a/route"]) {
      const answer = await ask(server.port, path, { method: "OPTIONS" });
      assert.equal(answer.status, 200);
      assert.equal(answer.text, "");
      assert.equal(answer.headers["access-control-allow-origin"], "https://app.example");
      assert.equal(answer.headers["access-control-allow-methods"], "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
      assert.equal(answer.headers.vary, undefined, "one allowed origin does not depend on the request");
      assert.equal(answer.headers["access-control-allow-headers"], "X-Tenant, Content-Type, Authorization");
      assert.equal(answer.headers["access-control-max-age"], "900");
    }
    assert.equal(built, before);
  });

  test("the allowed origin is sent on every other response, errors included", async () => {
    assert.equal((await ask(server.port, "/inspect")).headers["access-control-allow-origin"], "https://app.example");
    const missing = await ask(server.port, "/missing");
    assert.equal(missing.status, 404);
    assert.equal(missing.headers["access-control-allow-origin"], "https://app.example");
  });

  test("every other response lists the headers a script may read: ETag, Retry-After, X-Request-Id and the rate-limit ones", async () => {
    for (const path of ["/inspect", "/missing"]) {
      const answer = await ask(server.port, path);
      assert.equal(
        answer.headers["access-control-expose-headers"],
        "ETag, Retry-After, X-Request-Id, RateLimit, RateLimit-Policy, X-Consistency-Token",
        path,
      );
    }
  });
});

describe("CORS with several allowed origins", () => {
  let server: HttpServer<Ctx>;
  before(async () => {
    server = await started(Ctx, (s) => {
      s.allowAnonymous = true;
      s.registerController(InspectController);
      s.cors.allowOrigin = "https://a.example, https://B.example";
    });
  });
  after(async () => {
    await server.stop();
  });

  test("a listed origin is sent back, compared without case, with Vary: Origin", async () => {
    for (const method of ["OPTIONS", "GET"]) {
      const answer = await ask(server.port, "/inspect", { method, headers: { origin: "https://b.example" } });
      assert.equal(answer.headers["access-control-allow-origin"], "https://b.example", method);
      assert.equal(answer.headers.vary, "Origin", method);
    }
  });

  test("an origin not on the list, or none, gets no Allow-Origin but still Vary: Origin, errors included", async () => {
    for (const [path, headers] of [
      ["/inspect", { origin: "https://evil.example" }],
      ["/inspect", {}],
      ["/missing", { origin: "https://evil.example" }],
    ] as const) {
      const answer = await ask(server.port, path, { headers });
      assert.equal(answer.headers["access-control-allow-origin"], undefined, path);
      assert.equal(answer.headers["access-control-expose-headers"], undefined, path);
      assert.equal(answer.headers.vary, "Origin", path);
    }
  });
});

describe("defaults that need their own server", () => {
  test("method override is refused with 400 by default", async () => {
    const server = await started(Ctx, (s) => {
      s.allowAnonymous = true;
      s.registerController(InspectController);
    });
    try {
      const answer = await ask(server.port, "/inspect", { method: "POST", headers: { "x-http-method-override": "DELETE" } });
      assert.deepEqual(
        [answer.status, answer.json],
        [400, { status: 400, message: "Method override headers are not accepted by this server." }],
      );
      assert.equal((await ask(server.port, "/inspect", { method: "POST" })).json, "post");
    } finally {
      await server.stop();
    }
  });

  test("with no allowed origin a preflight carries no Allow-Origin and the default max age", async () => {
    const server = await started(Ctx, (s) => {
      s.allowAnonymous = true;
      s.registerController(InspectController);
    });
    try {
      const answer = await ask(server.port, "/inspect", { method: "OPTIONS" });
      assert.equal(answer.headers["access-control-allow-origin"], undefined);
      assert.equal(answer.headers["access-control-max-age"], "600");
      assert.equal(answer.headers["access-control-allow-headers"], "Content-Type, Authorization");
      const outcome = await raw(server.port, (write) => write("OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
      assert.deepEqual(statusesOf(outcome.text), [200]);
    } finally {
      await server.stop();
    }
  });
});
