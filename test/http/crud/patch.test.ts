// PATCH {base}/{id} over HTTP: a JSON Merge Patch (RFC 7396) changes only the properties it carries, with
// the version, validation, events and audit columns of PUT; every failure writes nothing.
import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";
import type { Answer } from "../http-test-client.js";
import { hooks, seedWidgets, startCrudServer, type CrudServer } from "./crud-fixtures.js";

let server: CrudServer;

before(async () => {
  server = await startCrudServer(seedWidgets);
});
after(async () => {
  await server.close();
});
afterEach(() => {
  delete hooks.writer;
});

type Row = Record<string, unknown>;

function widgetRow(id: number): Row {
  return server.rows("SELECT * FROM Widgets WHERE ID = ?", id)[0];
}

function json(answer: Answer, status = 200): Row {
  assert.equal(answer.status, status, answer.text);
  return answer.json as Row;
}

const mergePatch = { "Content-Type": "application/merge-patch+json", "X-Test-User": "patcher" };

describe("PATCH of one entity", () => {
  test("a patch changes only the properties it carries; every other column keeps its stored value", async () => {
    const before = widgetRow(7);
    const answer = json(await server.call("PATCH", "/widgets/7", { versionId: 0, name: "Patched", quantity: 77 }, mergePatch));
    assert.equal(answer.name, "Patched");
    assert.equal(answer.quantity, 77);
    assert.equal(answer.versionId, 1);
    assert.equal(answer.updatedBy, "patcher");
    assert.equal(answer.createdBy, "seed");
    assert.equal(answer.email, "w7@example.com");
    const row = widgetRow(7);
    const changed = ["Name", "Quantity", "VersionID", "UpdatedAt", "UpdatedBy"];
    assert.deepEqual(
      { Name: row.Name, Quantity: row.Quantity, VersionID: row.VersionID, UpdatedBy: row.UpdatedBy },
      { Name: "Patched", Quantity: 77, VersionID: 1, UpdatedBy: "patcher" },
    );
    assert.equal(typeof row.UpdatedAt, "string");
    const untouched = (r: Row): Row => Object.fromEntries(Object.entries(r).filter(([key]) => !changed.includes(key)));
    assert.deepEqual(untouched(row), untouched(before), "the JSON-ignored, write-only and reference columns are kept too");
  });

  test("plain JSON is a merge patch too, null sets a nullable property to null, and a reference changes by its id", async () => {
    json(await server.call("PATCH", "/widgets/8", { versionId: 0, email: null, categoryId: 2 }));
    const row = widgetRow(8);
    assert.equal(row.Email, null);
    assert.equal(row.CategoryID, 2);
    assert.equal(row.Name, "Widget 08");
    assert.equal(row.Password, "password 8");
  });

  test("a GET answer sent back as a patch works: read-only properties are ignored as in PUT", async () => {
    const current = json(await server.call("GET", "/widgets/9"));
    const answer = json(await server.call("PATCH", "/widgets/9", { ...current, name: "Round trip", createdBy: "mallory" }));
    assert.equal(answer.name, "Round trip");
    assert.equal(answer.createdBy, "seed");
    assert.equal(widgetRow(9).Internal, "internal 9");
    assert.equal(widgetRow(9).Password, "password 9");
  });

  test("a patch runs the update events in order, in one transaction", async () => {
    const log: string[] = [];
    hooks.writer = (writer) => {
      writer.onBeforeUpdate = (w) => void log.push(`before: ${w.name} q${w.quantity}`);
      writer.onAfterUpdate = (w) => void log.push(`after: ${w.name} v${w.versionId}`);
    };
    json(await server.call("PATCH", "/widgets/10", { versionId: 0, name: "Evented" }));
    assert.deepEqual(log, ["before: Evented q100", "after: Evented v1"]);
  });

  test("PATCH answers 405 where it is not routed, and the 405 of a patchable address lists it in Allow (and DELETE, with If-Match)", async () => {
    const answer = await server.call("PATCH", "/widgets");
    assert.equal(answer.status, 405, answer.text);
    assert.equal(answer.headers.allow, "GET, HEAD, POST, PUT");
    const onId = await server.call("POST", "/widgets/3");
    assert.equal(onId.status, 405, onId.text);
    assert.equal(onId.headers.allow, "GET, HEAD, PATCH, DELETE");
  });
});

describe("a PATCH that fails writes nothing", () => {
  test("a stale version answers 409", async () => {
    json(await server.call("PATCH", "/widgets/11", { versionId: 0, name: "First" }));
    const dump = server.dump();
    const answer = await server.call("PATCH", "/widgets/11", { versionId: 0, name: "Second" });
    assert.equal(answer.status, 409, answer.text);
    assert.equal(server.dump(), dump);
  });

  test("null for a property that cannot hold null answers 422 naming it", async () => {
    const dump = server.dump();
    const answer = await server.call("PATCH", "/widgets/12", { versionId: 0, name: null, quantity: null }, mergePatch);
    assert.equal(answer.status, 422, answer.text);
    assert.deepEqual((answer.json as { errors: { property: string }[] }).errors.map((e) => e.property).sort(), ["name", "quantity"]);
    assert.equal(server.dump(), dump);
  });

  test("a validation failure of a patched value answers 422", async () => {
    const dump = server.dump();
    const answer = await server.call("PATCH", "/widgets/12", { versionId: 0, quantity: -1 });
    assert.equal(answer.status, 422, answer.text);
    assert.equal(server.dump(), dump);
  });

  test("a malformed body, a body that is not an object, a missing version or another id answer 400", async () => {
    const dump = server.dump();
    for (const body of [
      '{"versionId": 0, "name": ',
      "[1, 2]",
      "42",
      { name: "No version" },
      { id: 13, versionId: 0 },
      { versionId: 0, quantity: "many" },
    ]) {
      const answer = await server.call("PATCH", "/widgets/12", body, mergePatch);
      assert.equal(answer.status, 400, `${JSON.stringify(body)}: ${answer.text}`);
    }
    assert.equal(server.dump(), dump);
  });

  test("an unknown or soft-deleted id answers 404", async () => {
    const dump = server.dump();
    for (const id of [9999, 25]) {
      const answer = await server.call("PATCH", `/widgets/${id}`, { versionId: 0, name: "Ghost" });
      assert.equal(answer.status, 404, answer.text);
    }
    assert.equal(server.dump(), dump);
  });

  test("an exception in an event answers 500 and leaves the row as it was", async () => {
    hooks.writer = (writer) => {
      writer.onAfterUpdate = () => {
        throw new Error("event failed");
      };
    };
    const dump = server.dump();
    const answer = await server.call("PATCH", "/widgets/14", { versionId: 0, name: "Rolled back" });
    assert.equal(answer.status, 500, answer.text);
    assert.equal(server.dump(), dump);
  });
});
