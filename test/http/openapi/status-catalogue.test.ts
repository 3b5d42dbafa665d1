// The server's answers and the OpenAPI document read one catalogue of statuses (http-status-catalogue.ts):
// every error status a handler or the ORM can raise is answered with the body and headers the document
// gives for it.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { ConcurrentUpdateError, EntityNotFoundError, TransientDatabaseError, ValidationError } from "../../../src/errors.js";
import { HttpController } from "../../../src/http/exchange/http-controller.js";
import { HttpError } from "../../../src/http/exchange/http-errors.js";
import { HttpStatus } from "../../../src/http/exchange/http-messages.js";
import { HttpStatusCatalogue } from "../../../src/http/exchange/http-status-catalogue.js";
import { Get, Uri } from "../../../src/http/routing/route-decorators.js";
import { ask, started } from "../http-test-client.js";

class Ctx {}

@Uri("/fail")
class FailController extends HttpController<Ctx> {
  /** Throws an `HttpError` of the status in the path. */
  @Get("status/?")
  status(status: number): never {
    throw new HttpError(status, `Failed with ${status}.`);
  }
  /** Throws one of the ORM's typed errors. */
  @Get("orm/?", { params: "string" })
  orm(kind: string): never {
    if (kind === "missing") throw new EntityNotFoundError("Thing", 7);
    if (kind === "stale") throw new ConcurrentUpdateError("Thing", 7);
    if (kind === "invalid") throw new ValidationError([{ property: "name", column: "Name", message: "Name is required." }]);
    if (kind === "transient") throw new TransientDatabaseError("connection lost", "connection", true, true);
    throw new Error("a secret cause");
  }
}

describe("the status catalogue", () => {
  test("has an entry for every status of HttpStatus, among them 200/201/304, the 4xx of the API and 500/503", () => {
    const statuses: number[] = Object.values(HttpStatusCatalogue)
      .map((entry) => entry.status)
      .sort((a, b) => a - b);
    const served: number[] = [...Object.values(HttpStatus)].sort((a, b) => a - b);
    assert.deepEqual(served, statuses);
    for (const status of [200, 201, 304, 400, 401, 403, 404, 405, 408, 409, 412, 413, 422, 428, 429, 431, 500, 503]) {
      assert.ok(statuses.includes(status), `${status} is in the catalogue`);
    }
    assert.equal(HttpStatusCatalogue.internalServerError.body, "serverError");
    assert.deepEqual(HttpStatusCatalogue.serviceUnavailable.headers, ["Retry-After"]);
  });

  test("every error answer has the body and headers the OpenAPI document gives for its status", async () => {
    const server = await started(Ctx, (s) => {
      s.allowAnonymous = true;
      s.registerController(FailController);
    });
    try {
      const document = server.openApi();
      const ajv = new Ajv2020({ strict: false });
      ajv.addSchema({ ...document, $id: "https://tenon.invalid/openapi.json" });
      const check = async (path: string, expected: number): Promise<void> => {
        const answer = await ask(server.port, path);
        assert.equal(answer.status, expected, answer.text);
        const component = `Error${expected}`;
        const response = document.components.responses[component] as { headers?: Record<string, unknown> } | undefined;
        assert.ok(response !== undefined, `${component} is in the document`);
        const validate = ajv.getSchema(
          `https://tenon.invalid/openapi.json#/components/responses/${component}/content/application~1json/schema`,
        );
        assert.ok(validate !== undefined);
        assert.ok(validate(answer.json), `${path}: ${answer.text} ${JSON.stringify(validate.errors)}`);
        for (const name of Object.keys(answer.headers)) {
          if (["retry-after", "www-authenticate", "allow", "ratelimit", "ratelimit-policy"].includes(name)) {
            const documented = Object.keys(response.headers ?? {}).map((header) => header.toLowerCase());
            assert.ok(documented.includes(name), `${name} of ${path} is documented for ${expected}`);
          }
        }
      };
      for (const entry of Object.values(HttpStatusCatalogue)) {
        if (entry.status >= 400 && entry.status < 500) await check(`/fail/status/${entry.status}`, entry.status);
      }
      await check("/fail/orm/missing", 404);
      await check("/fail/orm/stale", 409);
      await check("/fail/orm/invalid", 422);
      await check("/fail/orm/transient", 503);
      await check("/fail/orm/other", 500);
      await check("/fail/status/503", 503);
      const unprocessable = await ask(server.port, "/fail/status/422");
      assert.deepEqual(unprocessable.json, { status: 422, message: "Failed with 422.", errors: [] });
      const transient = await ask(server.port, "/fail/orm/transient");
      assert.equal(transient.headers["retry-after"], "1");
    } finally {
      await server.stop();
    }
  });
});
