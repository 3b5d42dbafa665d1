// The routes HttpEntityController adds beside the single writes (PATCH beside PUT, bulk beside POST, PUT and
// DELETE) are never guarded less than those in a subclass that puts `@Area`s on the single writes only.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Area } from "tenon/http";
import { controllerRoutesOf } from "../../../src/http/routing/controller-routes.js";
import { PartController } from "./crud-fixtures.js";

class GuardedParts extends PartController {
  @Area("write") override insert(): Promise<unknown> {
    return super.insert();
  }
  @Area("write") override update(): Promise<unknown> {
    return super.update();
  }
  @Area("remove") override delete(id: number, version?: number) {
    return super.delete(id, version);
  }
}

class OwnPatchArea extends GuardedParts {
  @Area("patcher") override patch(id: number): Promise<unknown> {
    return super.patch(id);
  }
}

function areasOf(controller: Function, method: string, verb: string): readonly string[] {
  const route = controllerRoutesOf(controller).find((each) => each.methodName === method && each.verb.method === verb);
  assert.ok(route, `${verb} route of ${method}`);
  return route.areas;
}

describe("areas of the generic controller's added routes", () => {
  test("PATCH takes update's areas and bulk those of insert, update and delete", () => {
    assert.deepEqual(areasOf(GuardedParts, "patch", "PATCH"), ["write"]);
    assert.deepEqual([...areasOf(GuardedParts, "bulk", "POST")].sort(), ["remove", "write"]);
  });

  test("an area of the route's own replaces the borrowed ones", () => {
    assert.deepEqual(areasOf(OwnPatchArea, "patch", "PATCH"), ["patcher"]);
  });

  test("with no areas anywhere the routes stay open to every authenticated caller, as before", () => {
    assert.deepEqual(areasOf(PartController, "patch", "PATCH"), []);
    assert.deepEqual(areasOf(PartController, "bulk", "POST"), []);
  });
});
