import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { SignJWT } from "jose";
import { BasicAuthentication } from "../../../src/http/auth/basic-authentication.js";
import { BearerAuthentication } from "../../../src/http/auth/bearer-authentication.js";
import { constantTimeEquals } from "../../../src/http/auth/constant-time.js";
import { HttpAuthentication } from "../../../src/http/auth/http-authentication.js";
import { JwtKeyring, type JwtPayload } from "../../../src/http/auth/jwt-keyring.js";
import { HttpController } from "../../../src/http/exchange/http-controller.js";
import { HttpForbiddenError, HttpServerError, HttpUnauthorizedError } from "../../../src/http/exchange/http-errors.js";
import type { HttpRequest } from "../../../src/http/exchange/http-request.js";
import type { HttpServer } from "../../../src/http/server/http-server.js";
import { HttpUser } from "../../../src/http/exchange/http-user.js";
import { Area, Get, Uri } from "../../../src/http/routing/route-decorators.js";
import { ask, started } from "../http-test-client.js";

class Ctx {
  readonly tenant = "t1";
}

@Uri("/me")
class MeController extends HttpController<Ctx> {
  @Get()
  me(): unknown {
    const user = this.request.user!;
    return { username: user.username, areas: user.areas, tenant: user.tenant };
  }
  @Get("admin")
  @Area("admin")
  admin(): unknown {
    return "admin";
  }
}

const secret = "a-shared-secret-of-at-least-32-bytes!";
const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const otherRsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const keyring = new JwtKeyring()
  .addHs256("hs-1", secret)
  .addRs256(
    "rs-1",
    rsa.publicKey.export({ type: "spki", format: "pem" }).toString(),
    rsa.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  );

class TestBasic extends BasicAuthentication<Ctx> {
  protected isValid(username: string, password: string): boolean | HttpUser {
    if (username === "admin" && constantTimeEquals(password, "s3cret:with:colons"))
      return new HttpUser("admin", ["Admin"], this.context.tenant);
    return username === "plain" && constantTimeEquals(password, "pw");
  }
}

class TestBearer extends BearerAuthentication<Ctx> {
  protected get keyring(): JwtKeyring {
    return keyring;
  }
  protected isValid(payload: JwtPayload): boolean | HttpUser {
    if (payload.sub === "banned") return false;
    if (Array.isArray(payload.areas)) return new HttpUser(String(payload.sub), payload.areas as string[], String(payload.tenant ?? ""));
    return true;
  }
}

class ThrowingAuthentication extends HttpAuthentication<Ctx> {
  check(request: HttpRequest): void {
    const mode = request.header("x-mode");
    if (mode === "forbid") throw new HttpForbiddenError("blocked ip");
    if (mode === "custom") throw new HttpUnauthorizedError('Custom realm="x"');
  }
}

function basic(user: string, password: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` };
}

function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

describe("Basic authentication", () => {
  let server: HttpServer<Ctx>;
  before(async () => {
    server = await started(Ctx, (s) => {
      s.registerAuthentication(TestBasic);
      s.registerController(MeController);
    });
  });
  after(() => server.stop());

  test("valid credentials fill the user, with the areas and tenant isValid gives", async () => {
    const answer = await ask(server.port, "/me", { headers: basic("admin", "s3cret:with:colons") });
    assert.deepEqual(answer.json, { username: "admin", areas: ["Admin"], tenant: "t1" });
    const plain = await ask(server.port, "/me", { headers: basic("plain", "pw") });
    assert.deepEqual(plain.json, { username: "plain", areas: [], tenant: "" });
  });

  test("a wrong password, a missing header or a malformed one answers 401 with a Basic challenge", async () => {
    for (const headers of [basic("admin", "wrong"), {}, { authorization: "Basic !!!" }, { authorization: "Bearer x" }]) {
      const answer = await ask(server.port, "/me", { headers });
      assert.equal(answer.status, 401);
      assert.equal(answer.headers["www-authenticate"], 'Basic realm="tenon", charset="UTF-8"');
      assert.deepEqual(answer.json, { status: 401, message: "Access unauthorized: /me." });
    }
  });

  test("areas from isValid open area routes (case-insensitive), others get 403", async () => {
    assert.equal((await ask(server.port, "/me/admin", { headers: basic("admin", "s3cret:with:colons") })).json, "admin");
    assert.equal((await ask(server.port, "/me/admin", { headers: basic("plain", "pw") })).status, 403);
  });
});

describe("Bearer authentication with JWT", () => {
  let server: HttpServer<Ctx>;
  before(async () => {
    server = await started(Ctx, (s) => {
      s.registerAuthentication(TestBearer);
      s.registerController(MeController);
    });
  });
  after(() => server.stop());

  test("an HS256 token signed by the keyring is accepted", async () => {
    const token = await keyring.sign({ sub: "alice", areas: ["admin"], tenant: "acme" }, { kid: "hs-1" });
    const answer = await ask(server.port, "/me", { headers: bearer(token) });
    assert.deepEqual(answer.json, { username: "alice", areas: ["admin"], tenant: "acme" });
    assert.equal((await ask(server.port, "/me/admin", { headers: bearer(token) })).json, "admin");
  });

  test("an RS256 token is verified with the key its kid names", async () => {
    const token = await keyring.sign({ sub: "bob" }, { kid: "rs-1" });
    assert.deepEqual((await ask(server.port, "/me", { headers: bearer(token) })).json, { username: "bob", areas: [], tenant: "" });
  });

  test("many tokens of both keys at once are each accepted, and a forged one among them refused (each key imported once, shared)", async () => {
    const keyring = new JwtKeyring().addHs256("hs-1", secret).addRs256("rs-1", rsa.publicKey, rsa.privateKey);
    const tokens = await Promise.all(
      Array.from({ length: 24 }, (_, i) => keyring.sign({ sub: `user-${i}` }, { kid: i % 2 === 0 ? "hs-1" : "rs-1" })),
    );
    const claims = await Promise.all(tokens.map((token) => keyring.verify(token)));
    assert.deepEqual(
      claims.map((payload) => payload.sub),
      tokens.map((_, i) => `user-${i}`),
    );
    const forged = await new SignJWT({ sub: "mallory" })
      .setProtectedHeader({ alg: "RS256", kid: "rs-1" })
      .setExpirationTime("1h")
      .sign(otherRsa.privateKey);
    await assert.rejects(keyring.verify(forged));
    assert.equal((await keyring.verify(tokens[3])).sub, "user-3");
  });

  test("an expired token answers 401", async () => {
    const token = await new SignJWT({ sub: "alice" })
      .setProtectedHeader({ alg: "HS256", kid: "hs-1" })
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(Buffer.from(secret));
    const answer = await ask(server.port, "/me", { headers: bearer(token) });
    assert.equal(answer.status, 401);
    assert.equal(answer.headers["www-authenticate"], 'Bearer error="invalid_token"');
  });

  test("a token signed with another key, an unknown kid or a tampered payload answers 401", async () => {
    const foreign = await new SignJWT({ sub: "mallory" })
      .setProtectedHeader({ alg: "RS256", kid: "rs-1" })
      .setExpirationTime("1h")
      .sign(otherRsa.privateKey);
    const unknownKid = await new SignJWT({ sub: "mallory" })
      .setProtectedHeader({ alg: "HS256", kid: "nope" })
      .setExpirationTime("1h")
      .sign(Buffer.from(secret));
    const good = await keyring.sign({ sub: "alice" });
    const [header, , signature] = good.split(".");
    const tampered = `${header}.${Buffer.from(JSON.stringify({ sub: "root", exp: 9999999999 })).toString("base64url")}.${signature}`;
    for (const token of [foreign, unknownKid, tampered, "not-a-token"]) {
      assert.equal((await ask(server.port, "/me", { headers: bearer(token) })).status, 401, token);
    }
  });

  test("a token whose alg does not match its key's algorithm is refused (no algorithm confusion)", async () => {
    const publicPem = rsa.publicKey.export({ type: "spki", format: "pem" }).toString();
    const confused = await new SignJWT({ sub: "mallory" })
      .setProtectedHeader({ alg: "HS256", kid: "rs-1" })
      .setExpirationTime("1h")
      .sign(Buffer.from(publicPem));
    assert.equal((await ask(server.port, "/me", { headers: bearer(confused) })).status, 401);
  });

  test("isValid can refuse a verified token", async () => {
    const token = await keyring.sign({ sub: "banned" });
    assert.equal((await ask(server.port, "/me", { headers: bearer(token) })).status, 401);
  });

  test("the keyring refuses short HS256 secrets and duplicate key ids", () => {
    assert.throws(() => new JwtKeyring().addHs256("k", "short"), HttpServerError);
    assert.throws(() => new JwtKeyring().addHs256("k", secret).addHs256("k", secret), /already added/);
  });
});

describe("an application's own authentication class", () => {
  let server: HttpServer<Ctx>;
  before(async () => {
    server = await started(Ctx, (s) => {
      s.registerAuthentication(ThrowingAuthentication);
      s.registerController(MeController);
    });
  });
  after(() => server.stop());

  test("a check that sets no user answers 401 with the class's challenge", async () => {
    const answer = await ask(server.port, "/me");
    assert.equal(answer.status, 401);
    assert.equal(answer.headers["www-authenticate"], "Bearer");
  });

  test("a check may answer 403 or 401 with its own challenge", async () => {
    const forbidden = await ask(server.port, "/me", { headers: { "x-mode": "forbid" } });
    assert.deepEqual([forbidden.status, forbidden.json], [403, { status: 403, message: "Access forbidden: /me." }]);
    const custom = await ask(server.port, "/me", { headers: { "x-mode": "custom" } });
    assert.equal(custom.headers["www-authenticate"], 'Custom realm="x"');
  });

  test("constantTimeEquals compares content of any length", () => {
    assert.equal(constantTimeEquals("abc", "abc"), true);
    assert.equal(constantTimeEquals("abc", "abd"), false);
    assert.equal(constantTimeEquals("abc", "abcd"), false);
  });
});
