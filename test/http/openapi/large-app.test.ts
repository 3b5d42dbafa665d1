// The document of a large application describes every route and every entity, and is built once: the
// served text is the same object on every request (bench/openapi-document.mjs measures the times).
import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { describe, test } from "node:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { largeApp } from "./large-app.js";

describe("the OpenAPI document of a large application", () => {
  test("500 entities with the generic routes: every operation, the components of each entity, a valid document", async (t) => {
    const server = largeApp(500);
    const started = performance.now();
    const document = server.openApi() as unknown as {
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, unknown> };
    };
    t.diagnostic(`built in ${(performance.now() - started).toFixed(0)} ms`);
    const operations = Object.values(document.paths).reduce((sum, methods) => sum + Object.keys(methods).length, 0);
    const perEntity = Object.keys(largeApp(1).openApi().paths).reduce(
      (sum, path) => sum + Object.keys(largeApp(1).openApi().paths[path]).length,
      0,
    );
    assert.ok(perEntity >= 10);
    assert.equal(operations, 500 * perEntity);
    for (const name of ["Entity1", "Entity1EntityOnly", "Entity1WithRelations", "Entity500WithRelations", "Entity500Page"]) {
      assert.ok(document.components.schemas[name] !== undefined, name);
    }
    assert.equal(document.components.schemas.Entity1WithDetails, undefined, "without details, WithRelations serves get too");
    const result = await new Validator().validate(structuredClone(document) as never);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
  });
});
