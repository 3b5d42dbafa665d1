// Authentication under attack: forged, expired, premature, unsigned, misdirected, confused and oversized
// tokens; broken Basic credentials; areas in another case; 401 before 404 on every unknown path; and the
// areas of a server that also allows anonymous callers. Real servers on real sockets.
import assert from "node:assert/strict";
import { createSecretKey, generateKeyPairSync } from "node:crypto";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import { SignJWT } from "jose";
import { BasicAuthentication } from "../../src/http/auth/basic-authentication.js";
import { BearerAuthentication } from "../../src/http/auth/bearer-authentication.js";
import { constantTimeEquals } from "../../src/http/auth/constant-time.js";
import { JwtKeyring, type JwtPayload } from "../../src/http/auth/jwt-keyring.js";
import { HttpController } from "../../src/http/exchange/http-controller.js";
import type { HttpServer } from "../../src/http/server/http-server.js";
import { HttpUser } from "../../src/http/exchange/http-user.js";
import { Area, Get, Uri } from "../../src/http/routing/route-decorators.js";
import { type Answer, ask, started } from "../http/http-test-client.js";

const long = process.env.TENON_LONG === "1";
const seed = process.env.TENON_SEED === undefined ? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0 : Number(process.env.TENON_SEED);

class Ctx {}

@Uri("/reports")
class ReportController extends HttpController<Ctx> {
  @Get()
  list(): unknown {
    return { user: this.request.user?.username ?? null };
  }
  @Get("audit")
  @Area("Auditor")
  audit(): unknown {
    return { audit: this.request.user?.username };
  }
}

const secret = "the-first-shared-secret-of-32-bytes-or-more";
const otherSecret = "the-second-shared-secret-of-32-bytes-or-more";
const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const rsaPublicPem = rsa.publicKey.export({ type: "spki", format: "pem" }).toString();
const keyring = new JwtKeyring()
  .addHs256("hs-1", secret)
  .addHs256("hs-2", otherSecret)
  .addRs256("rs-1", rsaPublicPem, rsa.privateKey.export({ type: "pkcs8", format: "pem" }).toString());

class Bearer extends BearerAuthentication<Ctx> {
  protected get keyring(): JwtKeyring {
    return keyring;
  }
  protected isValid(payload: JwtPayload): HttpUser {
    return new HttpUser(String(payload.sub), Array.isArray(payload.areas) ? (payload.areas as string[]) : []);
  }
}

class Basic extends BasicAuthentication<Ctx> {
  protected isValid(username: string, password: string): HttpUser | boolean {
    return username === "ann" && constantTimeEquals(password, "pw:with:colons") ? new HttpUser("ann", ["AUDITOR"]) : false;
  }
}

const now = (): number => Math.floor(Date.now() / 1000);
const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A token signed with `key` under the header `header`, carrying `claims`. */
function signed(claims: JwtPayload, header: { alg: string; kid?: string }, key: Parameters<SignJWT["sign"]>[0]): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ ...header, typ: "JWT" }).sign(key);
}

const hsKey = createSecretKey(Buffer.from(secret));

function expect401(answer: Answer, challenge: RegExp, what: string): void {
  assert.equal(answer.status, 401, what);
  assert.match(String(answer.headers["www-authenticate"]), challenge, what);
  assert.deepEqual(answer.json, { status: 401, message: "Access unauthorized: /api/reports." }, what);
}

describe("bearer tokens under attack", () => {
  let server: HttpServer<Ctx>;
  let port: number;
  let good: string;

  before(async () => {
    server = await started(Ctx, (s) => {
      s.baseUri = "/api";
      s.registerAuthentication(Bearer);
      s.registerController(ReportController);
    });
    port = server.port;
    good = await keyring.sign({ sub: "ann", areas: ["auditor"] }, { kid: "hs-1", expiresIn: 600 });
  });

  after(async () => {
    await server.stop();
  });

  const call = (token: string): Promise<Answer> => ask(port, "/api/reports", { headers: { authorization: `Bearer ${token}` } });

  test("the untouched token is accepted, whatever the case of the scheme", async () => {
    assert.deepEqual((await call(good)).json, { user: "ann" });
    const lower = await ask(port, "/api/reports", { headers: { authorization: `bearer ${good}` } });
    assert.deepEqual(lower.json, { user: "ann" });
  });

  test("a tampered payload, header or signature answers 401", async () => {
    const [header, payload, signature] = good.split(".");
    const forgedPayload = b64({ ...(JSON.parse(Buffer.from(payload, "base64url").toString()) as object), sub: "root" });
    const flipped = signature.slice(0, -2) + (signature.endsWith("AA") ? "BB" : "AA");
    for (const [what, token] of [
      ["payload", `${header}.${forgedPayload}.${signature}`],
      ["header", `${b64({ alg: "HS256", kid: "hs-1", typ: "JWT", extra: 1 })}.${payload}.${signature}`],
      ["signature", `${header}.${payload}.${flipped}`],
      ["no signature", `${header}.${payload}.`],
      ["two parts", `${header}.${payload}`],
      ["four parts", `${good}.${signature}`],
      ["garbage", "not-a-token"],
    ]) {
      expect401(await call(token), /^Bearer/, what);
    }
  });

  test("an expired token and a token not yet valid answer 401", async () => {
    const expired = await signed({ sub: "ann", iat: now() - 7200, exp: now() - 3600 }, { alg: "HS256", kid: "hs-1" }, hsKey);
    expect401(await call(expired), /invalid_token/, "expired");
    const premature = await signed({ sub: "ann", nbf: now() + 3600, exp: now() + 7200 }, { alg: "HS256", kid: "hs-1" }, hsKey);
    expect401(await call(premature), /invalid_token/, "not yet valid");
  });

  test("a token without an expiry answers 401: a leaked token must not live forever", async () => {
    const eternal = await signed({ sub: "ann" }, { alg: "HS256", kid: "hs-1" }, hsKey);
    expect401(await call(eternal), /invalid_token/, "no exp");
  });

  test("alg none, with or without a signature, answers 401", async () => {
    const claims = b64({ sub: "ann", exp: now() + 600 });
    for (const header of [{ alg: "none" }, { alg: "none", kid: "hs-1" }, { alg: "NONE", kid: "hs-1" }, { alg: "" }]) {
      expect401(await call(`${b64(header)}.${claims}.`), /^Bearer/, JSON.stringify(header));
      expect401(await call(`${b64(header)}.${claims}.${good.split(".")[2]}`), /^Bearer/, `${JSON.stringify(header)} signed`);
    }
  });

  test("a key id that is unknown, or names another key than the one that signed, answers 401", async () => {
    const claims = { sub: "ann", exp: now() + 600 };
    expect401(await call(await signed(claims, { alg: "HS256", kid: "hs-9" }, hsKey)), /invalid_token/, "unknown kid");
    expect401(await call(await signed(claims, { alg: "HS256", kid: "hs-2" }, hsKey)), /invalid_token/, "another HS key's kid");
    expect401(await call(await signed(claims, { alg: "HS256" }, hsKey)), /invalid_token/, "no kid with several keys");
  });

  test("HS/RS confusion: an HS256 token keyed with the RSA public key, under the RSA key's id, answers 401", async () => {
    const claims = { sub: "ann", exp: now() + 600 };
    const publicAsSecret = createSecretKey(Buffer.from(rsaPublicPem));
    expect401(await call(await signed(claims, { alg: "HS256", kid: "rs-1" }, publicAsSecret)), /invalid_token/, "HS256 under rs-1");
    expect401(await call(await signed(claims, { alg: "RS256", kid: "hs-1" }, rsa.privateKey)), /invalid_token/, "RS256 under hs-1");
    assert.equal((await call(await signed(claims, { alg: "RS256", kid: "rs-1" }, rsa.privateKey))).status, 200, "the real RS256 token");
  });

  test("an oversized token answers 401 within the header limit and 431 beyond it, and the server keeps serving", async () => {
    const padding = "x".repeat(12000);
    const big = await signed({ sub: "ann", exp: now() + 600, padding }, { alg: "HS256", kid: "hs-1" }, hsKey);
    assert.equal((await call(big)).status, 200, "a valid token of 16 KB is still a valid token");
    expect401(await call(`${big.slice(0, -4)}AAAA`), /invalid_token/, "a forged token of 16 KB");
    const huge = await call(`${good}${"A".repeat(40000)}`);
    assert.equal(huge.status, 431);
    assert.deepEqual(huge.json, { status: 431, message: "The request headers are too large." });
    assert.deepEqual((await call(good)).json, { user: "ann" });
  });

  test("areas compare without case: a token with 'auditor' opens @Area('Auditor'), one without it gets 403", async () => {
    assert.deepEqual((await ask(port, "/api/reports/audit", { headers: { authorization: `Bearer ${good}` } })).json, { audit: "ann" });
    const plain = await keyring.sign({ sub: "bob", areas: ["reader"] }, { kid: "hs-1" });
    const refused = await ask(port, "/api/reports/audit", { headers: { authorization: `Bearer ${plain}` } });
    assert.deepEqual([refused.status, refused.json], [403, { status: 403, message: "Access forbidden: /api/reports/audit." }]);
  });

  test(`401 comes before 404 and 405 on every unknown path and method (generated, seed ${seed})`, async () => {
    const segment = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/),
      fc.constantFrom("..", ".", "%2F", "%2e%2e", "%00", "%zz", "%", "reports", "api", "audit", "%C3%A9"),
    );
    const paths = fc.sample(
      fc.tuple(
        fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "TRACE", "HEAD"),
        fc.array(segment, { minLength: 0, maxLength: 5 }),
      ),
      { seed, numRuns: long ? 2000 : 200 },
    );
    const failures: string[] = [];
    for (const [method, segments] of paths) {
      const path = `/${segments.join("/")}`;
      const answer = await ask(port, path, { method });
      if (answer.status !== 401 || answer.headers["www-authenticate"] === undefined) failures.push(`${method} ${path}: ${answer.status}`);
    }
    assert.deepEqual(failures, [], `seed ${seed}`);
  });
});

describe("Basic credentials under attack", () => {
  let server: HttpServer<Ctx>;
  before(async () => {
    server = await started(Ctx, (s) => {
      s.baseUri = "/api";
      s.registerAuthentication(Basic);
      s.registerController(ReportController);
    });
  });
  after(async () => {
    await server.stop();
  });

  test("the right credentials are accepted, a password with colons included", async () => {
    const answer = await ask(server.port, "/api/reports", {
      headers: { authorization: `Basic ${Buffer.from("ann:pw:with:colons").toString("base64")}` },
    });
    assert.deepEqual(answer.json, { user: "ann" });
  });

  test("broken base64, no colon, an empty value, invalid UTF-8 and other schemes answer 401 with the Basic challenge", async () => {
    for (const value of [
      "Basic !!!not-base64!!!",
      "Basic YW5uOnB3", // ann:pw, the wrong password
      `Basic ${Buffer.from("annpw").toString("base64")}`,
      "Basic ",
      "Basic",
      "Basic ====",
      "Basic YW5u OnB3",
      `Basic ${Buffer.from([0x61, 0x6e, 0x6e, 0x3a, 0xff, 0xfe]).toString("base64")}`,
      `Basic ${Buffer.from(`ann:${"x".repeat(10000)}`).toString("base64")}`,
      "Bearer YW5uOnB3OndpdGg6Y29sb25z",
      "Digest username=ann",
    ]) {
      const answer = await ask(server.port, "/api/reports", { headers: { authorization: value } });
      expect401(answer, /^Basic realm="tenon"/, value.slice(0, 40));
    }
  });

  test("areas in another case: the user's AUDITOR opens @Area('Auditor')", async () => {
    const answer = await ask(server.port, "/api/reports/audit", {
      headers: { authorization: `Basic ${Buffer.from("ann:pw:with:colons").toString("base64")}` },
    });
    assert.deepEqual(answer.json, { audit: "ann" });
  });
});

describe("a server with allowAnonymous and an authentication class", () => {
  let server: HttpServer<Ctx>;
  before(async () => {
    server = await started(Ctx, (s) => {
      s.baseUri = "/api";
      s.allowAnonymous = true;
      s.registerAuthentication(Bearer);
      s.registerController(ReportController);
    });
  });
  after(async () => {
    await server.stop();
  });

  test("serves routes without @Area to anonymous callers", async () => {
    assert.deepEqual((await ask(server.port, "/api/reports")).json, { user: null });
  });

  test("still refuses an anonymous caller on a route with @Area: 401, not the handler and not 403", async () => {
    const anonymous = await ask(server.port, "/api/reports/audit");
    assert.equal(anonymous.status, 401);
    assert.deepEqual(anonymous.json, { status: 401, message: "Access unauthorized: /api/reports/audit." });
    const forged = await ask(server.port, "/api/reports/audit", { headers: { authorization: "Bearer forged.token.here" } });
    assert.equal(forged.status, 401);
    const token = await keyring.sign({ sub: "ann", areas: ["AUDITOR"] }, { kid: "rs-1" });
    assert.deepEqual((await ask(server.port, "/api/reports/audit", { headers: { authorization: `Bearer ${token}` } })).json, {
      audit: "ann",
    });
  });
});
