import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { after, before, describe, test } from "node:test";
import { HttpController } from "../../src/http/exchange/http-controller.js";
import { HttpServerError } from "../../src/http/exchange/http-errors.js";
import { HttpServer } from "../../src/http/server/http-server.js";
import { Get, Uri } from "../../src/http/routing/route-decorators.js";
import { started } from "./http-test-client.js";

class Ctx {}

@Uri("/whoami")
class WhoAmIController extends HttpController<Ctx> {
  @Get()
  get(): unknown {
    return { remoteIp: this.request.remoteIp, clientIp: this.request.clientIp };
  }
}

/** GET /whoami from the local address `from`, with an X-Forwarded-For header. */
function whoAmI(port: number, from: string, forwardedFor: string): Promise<{ remoteIp: string; clientIp: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: "127.0.0.1", port, path: "/whoami", localAddress: from, agent: false, headers: { "X-Forwarded-For": forwardedFor } },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () => resolve(JSON.parse(text) as { remoteIp: string; clientIp: string }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

async function serverTrusting(proxies: readonly string[] | undefined): Promise<HttpServer<Ctx>> {
  return started(Ctx, (s) => {
    s.allowAnonymous = true;
    if (proxies !== undefined) s.trustedProxies = proxies;
    s.registerController(WhoAmIController);
  });
}

describe("the trusted-proxy rule", () => {
  const servers: HttpServer<Ctx>[] = [];
  let trustOne: HttpServer<Ctx>;
  let byDefault: HttpServer<Ctx>;
  let trustNone: HttpServer<Ctx>;

  before(async () => {
    trustOne = await serverTrusting(["127.0.0.1"]);
    byDefault = await serverTrusting(undefined);
    trustNone = await serverTrusting([]);
    servers.push(trustOne, byDefault, trustNone);
  });

  after(async () => {
    for (const server of servers) await server.stop();
  });

  test("by default every loopback peer is trusted", async () => {
    assert.deepEqual(new HttpServer(Ctx).trustedProxies, ["127.0.0.0/8", "::1"]);
    assert.deepEqual(await whoAmI(byDefault.port, "127.0.0.2", "203.0.113.7"), { remoteIp: "127.0.0.2", clientIp: "203.0.113.7" });
  });

  test("a peer on the trust list gives the client address through X-Forwarded-For", async () => {
    assert.deepEqual(await whoAmI(trustOne.port, "127.0.0.1", "198.51.100.1, 203.0.113.7"), {
      remoteIp: "127.0.0.1",
      clientIp: "203.0.113.7",
    });
  });

  test("the X-Forwarded-For of a peer outside the trust list is ignored", async () => {
    assert.deepEqual(await whoAmI(trustOne.port, "127.0.0.2", "203.0.113.7"), { remoteIp: "127.0.0.2", clientIp: "127.0.0.2" });
  });

  test("an empty trust list believes no peer, loopback included", async () => {
    assert.deepEqual(await whoAmI(trustNone.port, "127.0.0.1", "203.0.113.7"), { remoteIp: "127.0.0.1", clientIp: "127.0.0.1" });
  });

  test("CIDR ranges of both families are accepted and an invalid entry is refused", () => {
    const server = new HttpServer(Ctx);
    server.trustedProxies = ["10.0.0.0/8", "fd00::/8", "192.0.2.1"];
    assert.deepEqual(server.trustedProxies, ["10.0.0.0/8", "fd00::/8", "192.0.2.1"]);
    for (const invalid of ["10.0.0.0/33", "proxy.example", "10.0.0.0/8/1", "::1/129", "10.0.0.0/x", ""]) {
      assert.throws(() => (server.trustedProxies = [invalid]), HttpServerError, invalid);
    }
    assert.throws(() => (trustOne.trustedProxies = []), HttpServerError, "refused while running");
  });
});
