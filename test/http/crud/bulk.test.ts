// POST {base}/bulk over HTTP: inserts, updates and deletes in one transaction, all or nothing; every bad body
// and every failing item answers its 4xx with "operation" and "index", and writes nothing.
import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";
import { HttpError } from "tenon/http";
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

function json(answer: Answer, status = 200): Row {
  assert.equal(answer.status, status, answer.text);
  return answer.json as Row;
}

const maxId = (): number => server.rows("SELECT MAX(ID) AS m FROM Widgets")[0].m as number;
const row = (id: number): Row | undefined => server.rows("SELECT * FROM Widgets WHERE ID = ?", id)[0];

/** Sends a bulk body that must fail: its status and body, and the database unchanged. */
async function refused(body: unknown, status: number, expected: Row): Promise<void> {
  const dump = server.dump();
  const answer = await server.call("POST", "/widgets/bulk", body);
  assert.equal(answer.status, status, answer.text);
  for (const [key, value] of Object.entries(expected)) assert.deepEqual((answer.json as Row)[key], value, `${key}: ${answer.text}`);
  assert.equal(server.dump(), dump, "nothing was written");
}

describe("a bulk body", () => {
  test("inserts, updates and deletes in one request and answers the inserted, the updated (reloaded) and the deleted ids", async () => {
    const next = maxId() + 1;
    const body = json(
      await server.call(
        "POST",
        "/widgets/bulk",
        {
          insert: [
            { name: "Bulk A", quantity: 1 },
            { name: "Bulk B", quantity: 2, categoryId: 2 },
            { id: 900, name: "Bulk C" },
          ],
          update: [
            { id: 6, versionId: 0, name: "Six changed", quantity: 66 },
            { id: 7, versionId: 0, name: "Seven changed", quantity: 77 },
          ],
          delete: [
            { id: 8, versionId: 0 },
            { id: 9, versionId: 0 },
          ],
        },
        { "X-Test-User": "bulker" },
      ),
    );
    const inserted = body.inserted as Row[];
    assert.deepEqual(
      inserted.map((each) => [each.id, each.name, each.versionId, each.createdBy]),
      [
        [next, "Bulk A", 0, "bulker"],
        [next + 1, "Bulk B", 0, "bulker"],
        [900, "Bulk C", 0, "bulker"],
      ],
    );
    assert.deepEqual(inserted[1].category, { id: 2, title: "Toys", versionId: 0 });
    const updated = body.updated as Row[];
    assert.deepEqual(
      updated.map((each) => [each.id, each.name, each.quantity, each.versionId, each.updatedBy, each.createdBy]),
      [
        [6, "Six changed", 66, 1, "bulker", "seed"],
        [7, "Seven changed", 77, 1, "bulker", "seed"],
      ],
    );
    assert.deepEqual(body.deleted, [8, 9]);
    assert.equal(row(next)?.Name, "Bulk A");
    assert.equal(row(900)?.CreatedBy, "bulker");
    assert.equal(row(6)?.Quantity, 66);
    assert.equal(row(6)?.Internal, "internal 6", "a column JSON never reads keeps its stored value");
    assert.equal(row(7)?.VersionID, 1);
    assert.equal(row(8)?.DeletedBy, "bulker", "a soft delete keeps the row");
    assert.equal(row(9)?.VersionID, 1);
    assert.equal((await server.call("GET", "/widgets/9")).status, 404);
  });

  test("an empty body and empty lists answer three empty lists", async () => {
    assert.deepEqual(json(await server.call("POST", "/widgets/bulk", {})), { inserted: [], updated: [], deleted: [] });
    assert.deepEqual(json(await server.call("POST", "/widgets/bulk", { insert: [], update: null, delete: [] })), {
      inserted: [],
      updated: [],
      deleted: [],
    });
  });

  test("writer events run for every item, and an item an event refuses rolls back every item with its operation and index", async () => {
    const seen: string[] = [];
    hooks.writer = (writer) => {
      writer.onBeforeInsert = (widget) => {
        seen.push(`before insert ${widget.name} ${widget.id > 0}`);
      };
      writer.onAfterUpdate = (widget) => {
        seen.push(`after update ${widget.id}`);
        if (widget.id === 11) throw new HttpError(409, "Widget 11 is frozen.");
      };
    };
    await refused(
      {
        insert: [{ name: "Evented" }],
        update: [
          { id: 10, versionId: 0, name: "Ten" },
          { id: 11, versionId: 0, name: "Eleven" },
        ],
      },
      409,
      { status: 409, message: "Widget 11 is frozen.", operation: "update", index: 1 },
    );
    assert.deepEqual(seen, ["before insert Evented true", "after update 10", "after update 11"]);
  });
});

describe("a failing item answers what its single write would, with operation and index, and writes nothing", () => {
  test("a validation failure of an update is a 422 with its errors", async () => {
    await refused(
      {
        insert: [{ name: "Fine" }],
        update: [
          { id: 12, versionId: 0, name: "Fine too" },
          { id: 13, versionId: 0, name: "", quantity: 5000 },
        ],
      },
      422,
      { status: 422, operation: "update", index: 1 },
    );
    const answer = await server.call("POST", "/widgets/bulk", { insert: [{ name: "ok" }, { name: "bad", email: "nope" }] });
    assert.equal(answer.status, 422);
    assert.equal((answer.json as Row).index, 1);
    assert.deepEqual(
      ((answer.json as Row).errors as Row[]).map((each) => each.property),
      ["email"],
    );
  });

  test("a stale version is a 409, an absent or soft-deleted id a 404", async () => {
    await refused(
      {
        update: [
          { id: 14, versionId: 0, name: "a" },
          { id: 15, versionId: 3, name: "b" },
        ],
      },
      409,
      {
        message: "Widget 15 was changed or deleted by another user.",
        operation: "update",
        index: 1,
      },
    );
    await refused(
      {
        update: [
          { id: 14, versionId: 0, name: "a" },
          { id: 4444, versionId: 0, name: "b" },
        ],
      },
      404,
      {
        message: "Entity 4444 not found.",
        operation: "update",
        index: 1,
      },
    );
    await refused(
      {
        delete: [
          { id: 14, versionId: 0 },
          { id: 16, versionId: 0 },
          { id: 17, versionId: 5 },
        ],
      },
      409,
      {
        operation: "delete",
        index: 2,
      },
    );
    await refused(
      {
        delete: [
          { id: 14, versionId: 0 },
          { id: 25, versionId: 0 },
        ],
      },
      404,
      {
        message: "Entity 25 not found.",
        operation: "delete",
        index: 1,
      },
    );
    await refused({ delete: [{ id: 4321, versionId: 0 }] }, 404, { operation: "delete", index: 0 });
  });

  test("a chosen id that a row has is the single insert's 409, also inside one body", async () => {
    await refused({ insert: [{ name: "a" }, { id: 1, name: "taken" }] }, 409, {
      message: "Entity 1 already exists.",
      operation: "insert",
      index: 1,
    });
    await refused({ insert: [{ id: 950, name: "a" }, { name: "b" }, { id: 950, name: "again" }] }, 409, {
      message: "Entity 950 already exists.",
      operation: "insert",
      index: 2,
    });
  });

  test("a value of the wrong JSON type is a 400 naming the item", async () => {
    await refused({ insert: [{ name: "a" }, { name: 5 }] }, 400, { operation: "insert", index: 1 });
    await refused({ update: [{ id: 14, name: "no version" }] }, 400, {
      message: "The body has no versionId: an update needs the version the entity was read with.",
      operation: "update",
      index: 0,
    });
  });
});

describe("a bulk body of the wrong shape answers 400 and writes nothing", () => {
  test("not an object, an unknown list, a list that is not an array, a bad delete item", async () => {
    await refused([], 400, { message: "A bulk body must be a JSON object with the lists insert, update and delete." });
    await refused("null", 400, { status: 400 });
    await refused({ insert: [{ name: "a" }], upsert: [] }, 400, {
      message: 'The bulk body has an unknown property "upsert"; expected insert, update and delete.',
    });
    await refused({ insert: { name: "a" } }, 400, { message: "The bulk property insert must be an array." });
    for (const item of [{ id: 3 }, { id: "3", versionId: 0 }, { id: 2 ** 31, versionId: 0 }, 7, null]) {
      await refused({ delete: [item] }, 400, { message: "A delete item must be an object with an integer id and versionId." });
    }
    await refused("{not json", 400, { status: 400 });
  });

  test("more items than maxBulkItems (default 1,000) is refused before any item is read", async () => {
    const many = Array.from({ length: 1001 }, () => ({ name: 5 }));
    await refused({ insert: many }, 400, { message: "The bulk body carries 1001 items; at most 1000 are accepted in one request." });
    hooks.writer = (writer) => {
      writer.maxBulkItems = 3;
    };
    await refused(
      {
        insert: [{ name: "a" }, { name: "b" }],
        delete: [
          { id: 1, versionId: 0 },
          { id: 2, versionId: 0 },
        ],
      },
      400,
      {
        message: "The bulk body carries 4 items; at most 3 are accepted in one request.",
      },
    );
  });
});
