// The HTTP core's part of the OpenAPI document: routes, placeholders, security, areas and the standard
// answers, for controllers that describe nothing (no ORM involved).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { BasicAuthentication } from "../../../src/http/auth/basic-authentication.js";
import { HttpController } from "../../../src/http/exchange/http-controller.js";
import { HttpServer } from "../../../src/http/server/http-server.js";
import { HttpStatus } from "../../../src/http/exchange/http-messages.js";
import { Area, AuthorizationType, Delete, Get, HttpAuthorizationType, Post, Uri } from "../../../src/http/routing/route-decorators.js";
import { ask, started } from "../http-test-client.js";

class Ctx {}

@Uri("/things")
class ThingController extends HttpController<Ctx> {
  @Get("?/?")
  pair(): unknown {
    return {};
  }
  @Get("by-name/?", { params: "string" })
  @Area("read")
  byName(): unknown {
    return {};
  }
  @Post()
  @Area("write")
  create(): unknown {
    return {};
  }
  @Delete("?")
  remove(): unknown {
    return {};
  }
}

@Uri("/files")
@AuthorizationType(HttpAuthorizationType.None)
class FileController extends HttpController<Ctx> {
  @Get("*")
  file(): unknown {
    return {};
  }
}

class Basic extends BasicAuthentication<Ctx> {
  protected override isValid(): boolean {
    return false;
  }
}

type Operation = {
  parameters?: { name: string; schema: unknown; in: string }[];
  responses: Record<string, unknown>;
  security?: unknown[];
  description?: string;
  "x-tenon-areas": string[];
};
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes?: Record<string, unknown>; responses: Record<string, unknown> };
  security?: unknown[];
};

function server(authenticated: boolean): HttpServer<Ctx> {
  const result = new HttpServer(Ctx);
  result.baseUri = "/v1";
  if (authenticated) {
    result.registerAuthentication(Basic);
    result.registerController(ThingController);
  } else result.allowAnonymous = true;
  result.registerController(FileController);
  return result;
}

describe("the OpenAPI document of the HTTP core", () => {
  test("is a valid OpenAPI 3.1 document with every route under the base URI, placeholders as path parameters", async () => {
    const document = server(true).openApi({ title: "Things", version: "2.0.0" }) as unknown as Document;
    const result = await new Validator().validate(structuredClone(document) as never);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
    assert.deepEqual(Object.keys(document.paths).sort(), [
      "/v1/files/{path}",
      "/v1/things",
      "/v1/things/by-name/{param1}",
      "/v1/things/{param1}",
      "/v1/things/{param1}/{param2}",
    ]);
    const pair = document.paths["/v1/things/{param1}/{param2}"].get;
    assert.deepEqual(
      pair.parameters?.map((parameter) => [parameter.name, parameter.in, parameter.schema]),
      [
        ["param1", "path", { type: "integer", format: "int32" }],
        ["param2", "path", { type: "integer", format: "int32" }],
      ],
    );
    assert.deepEqual(document.paths["/v1/things/by-name/{param1}"].get.parameters?.[0].schema, { type: "string" });
  });

  test("a Basic authentication gives the basic scheme; anonymous routes have no security; areas are listed", () => {
    const document = server(true).openApi() as unknown as Document;
    assert.deepEqual(document.components.securitySchemes, {
      basicAuth: { type: "http", scheme: "basic", description: "HTTP Basic authentication." },
    });
    assert.deepEqual(document.security, [{ basicAuth: [] }]);
    assert.deepEqual(document.paths["/v1/files/{path}"].get.security, []);
    assert.equal(document.paths["/v1/things"].post.security, undefined);
    assert.deepEqual(document.paths["/v1/things"].post["x-tenon-areas"], ["write"]);
    assert.match(document.paths["/v1/things"].post.description ?? "", /write/);
  });

  test("each route lists the standard answers it can give, from the server's status catalogue (no 429 without a rate limit)", () => {
    const document = server(true).openApi() as unknown as Document;
    const statuses = (path: string, method: string): string[] => Object.keys(document.paths[path][method].responses).sort();
    assert.deepEqual(statuses("/v1/things", "post"), [
      "200",
      "400",
      "401",
      "403",
      "405",
      "408",
      "409",
      "413",
      "417",
      "422",
      "431",
      "500",
      "503",
    ]);
    assert.deepEqual(statuses("/v1/things/{param1}", "delete"), [
      "200",
      "400",
      "401",
      "404",
      "405",
      "408",
      "409",
      "412",
      "428",
      "431",
      "500",
      "503",
    ]);
    assert.deepEqual(statuses("/v1/things/{param1}/{param2}", "get"), [
      "200",
      "304",
      "400",
      "401",
      "404",
      "405",
      "408",
      "431",
      "500",
      "503",
    ]);
    assert.deepEqual(statuses("/v1/files/{path}", "get"), ["200", "400", "405", "408", "431", "500", "503"]);
    const described = Object.keys(document.components.responses)
      .filter((name) => !name.endsWith("Head"))
      .map((name) => Number(name.replace(/^\D+/, "")));
    const served = Object.values(HttpStatus).filter((status) => status >= 300);
    assert.deepEqual(described.sort(), [...served].sort());
    assert.equal((document.components.responses.Answer304 as { content?: unknown }).content, undefined);
    const tooMany = document.components.responses.Error429 as { headers: Record<string, unknown> };
    assert.deepEqual(Object.keys(tooMany.headers), ["Retry-After", "RateLimit-Policy", "RateLimit"]);
    const serverError = document.components.responses.Error500 as { content: Record<string, { schema: unknown }> };
    assert.deepEqual(serverError.content["application/json"].schema, { $ref: "#/components/schemas/ServerError" });
    assert.ok((document.components.responses.Error503 as { headers: Record<string, unknown> }).headers["Retry-After"] !== undefined);
  });

  test("every GET route has its HEAD operation: the same parameters and answers, with their headers and never a body", async () => {
    const document = server(true).openApi() as unknown as Document;
    type Answer = { $ref?: string; content?: unknown; headers?: Record<string, unknown> };
    const components = document.components.responses as Record<string, Answer>;
    const resolve = (answer: Answer): Answer => (answer.$ref === undefined ? answer : components[answer.$ref.split("/").at(-1) ?? ""]);
    let heads = 0;
    for (const [path, methods] of Object.entries(document.paths)) {
      assert.equal(methods.head === undefined, methods.get === undefined, `${path}: a HEAD operation exactly where there is a GET`);
      if (methods.get === undefined) continue;
      heads++;
      const get = methods.get as Operation & { operationId: string };
      const head = methods.head as Operation & { operationId: string };
      assert.equal(head.operationId, `${get.operationId}_head`);
      assert.deepEqual(head.parameters, get.parameters);
      assert.deepEqual(head.security, get.security);
      assert.deepEqual(Object.keys(head.responses), Object.keys(get.responses));
      for (const [status, answer] of Object.entries(head.responses)) {
        const resolved = resolve(answer as Answer);
        assert.equal(resolved.content, undefined, `HEAD ${path} ${status} has no body`);
        assert.deepEqual(resolved.headers, resolve(get.responses[status] as Answer).headers, `HEAD ${path} ${status} has GET's headers`);
      }
    }
    assert.equal(heads, 3);
    assert.deepEqual(
      (document.paths["/v1/things/{param1}/{param2}"].head.responses["401"] as Answer).$ref,
      "#/components/responses/Error401Head",
    );
    const result = await new Validator().validate(structuredClone(document) as never);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
  });

  test("under a rate limit every answer's component lists RateLimit and RateLimit-Policy, errors included; without one none does", () => {
    const plain = server(true).openApi() as unknown as Document;
    const limited = server(true);
    limited.addRateLimit({ name: "limited", limit: 1, windowSeconds: 60, by: "ip" });
    const document = limited.openApi() as unknown as Document;
    for (const [name, answer] of Object.entries(document.components.responses as Record<string, { headers?: Record<string, unknown> }>)) {
      assert.ok(answer.headers?.RateLimit !== undefined && answer.headers["RateLimit-Policy"] !== undefined, `${name} lists them`);
    }
    for (const [name, answer] of Object.entries(plain.components.responses as Record<string, { headers?: Record<string, unknown> }>)) {
      if (name !== "Error429") assert.equal(answer.headers?.RateLimit, undefined, `${name} lists none`);
    }
  });

  test("a server without authentication has no security scheme at all", () => {
    const document = server(false).openApi() as unknown as Document;
    assert.equal(document.components.securitySchemes, undefined);
    assert.equal(document.security, undefined);
    assert.equal(document.paths["/v1/files/{path}"].get.security, undefined);
    assert.equal(document.paths["/v1/files/{path}"].get.responses["401"], undefined);
  });

  test("429 is listed where a rate limit can apply: every route under a global limit, one route under its own", async () => {
    const limited = (route: string | undefined): Document => {
      const s = server(true);
      s.addRateLimit({ name: "limited", limit: 1, windowSeconds: 60, by: "ip", route });
      return s.openApi() as unknown as Document;
    };
    const has429 = (document: Document, path: string, method: string): boolean =>
      document.paths[path][method].responses["429"] !== undefined;
    const everywhere = limited(undefined);
    for (const [path, methods] of Object.entries(everywhere.paths))
      for (const method of Object.keys(methods)) assert.ok(has429(everywhere, path, method), `${method} ${path} lists 429`);
    const one = limited("POST /v1/things");
    assert.equal(has429(one, "/v1/things", "post"), true);
    assert.equal(has429(one, "/v1/things/{param1}", "delete"), false);
    assert.equal(has429(one, "/v1/files/{path}", "get"), false);
    // the success answer of a limited route describes the headers every answer to it carries; the others none
    const successHeaderNames = (document: Document, path: string, method: string): string[] => {
      const responses = document.paths[path][method].responses as Record<string, { headers?: Record<string, unknown> }>;
      const success = Object.keys(responses).find((status) => status.startsWith("2"));
      return Object.keys(responses[success ?? ""]?.headers ?? {}).sort();
    };
    assert.deepEqual(successHeaderNames(one, "/v1/things", "post"), ["RateLimit", "RateLimit-Policy"]);
    assert.deepEqual(successHeaderNames(one, "/v1/things/{param1}", "delete"), []);
    assert.deepEqual(successHeaderNames(everywhere, "/v1/files/{path}", "get"), ["RateLimit", "RateLimit-Policy"]);
    const result = await new Validator().validate(structuredClone(one) as never);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
  });

  test("a route under a rate limit answers the 429 the served document lists for it; the others list none", async () => {
    const running = await started(Ctx, (s) => {
      s.allowAnonymous = true;
      s.registerController(FileController);
      s.addRateLimit({ name: "files", limit: 1, windowSeconds: 60, by: "ip", route: "GET /files/*" });
      s.serveOpenApi();
    });
    try {
      const document = (await ask(running.port, "/openapi.json")).json as Document;
      assert.deepEqual(Object.keys(document.paths["/files/{path}"].get.responses).sort(), [
        "200",
        "400",
        "405",
        "408",
        "429",
        "431",
        "500",
        "503",
      ]);
      assert.equal(document.paths["/openapi.json"].get.responses["429"], undefined);
      assert.equal((await ask(running.port, "/files/a")).status, 200);
      const refused = await ask(running.port, "/files/a");
      assert.equal(refused.status, 429);
      assert.ok(refused.headers["retry-after"] !== undefined);
      assert.equal((await ask(running.port, "/openapi.json")).status, 200);
    } finally {
      await running.stop();
    }
  });

  test("serveOpenApi answers the document anonymously, the same bytes on every request with their length", async () => {
    const running = await started(Ctx, (s) => {
      s.registerAuthentication(Basic);
      s.registerController(ThingController);
      s.serveOpenApi("/openapi.json", { title: "Choses à décrire — été", version: "1.0.0" });
    });
    try {
      const first = await ask(running.port, "/openapi.json");
      const second = await ask(running.port, "/openapi.json");
      assert.equal(first.status, 200);
      assert.equal(first.text, second.text);
      assert.match(String(first.headers["content-type"]), /^application\/json; charset=utf-8$/);
      assert.equal(Number(first.headers["content-length"]), Buffer.byteLength(first.text));
      assert.ok(Buffer.byteLength(first.text) > first.text.length, "the document has characters of more than one byte");
      assert.deepEqual(first.json, running.openApi());
      const head = await ask(running.port, "/openapi.json", { method: "HEAD" });
      assert.equal(head.status, 200);
      assert.equal(head.headers["content-length"], first.headers["content-length"]);
      assert.equal(head.text, "");
      assert.ok((first.json as unknown as Document).paths["/openapi.json"].get.security !== undefined);
      assert.equal((await ask(running.port, "/things")).status, 401);
    } finally {
      await running.stop();
    }
  });
});
