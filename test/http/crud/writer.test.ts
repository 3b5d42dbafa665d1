// HttpEntityWriter and the write routes of HttpEntityController over HTTP: insert, update, delete,
// createNew, every writer event in order, rollback on an exception in any event, 400/404/409/422.
import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";
import { type EntityClass, Filter } from "tenon";
import { HttpContext, HttpError, type HttpEntityWriter } from "tenon/http";
import type { Answer } from "../http-test-client.js";
import { hooks, Part, seedWidgets, startCrudServer, type CrudServer, type Widget } from "./crud-fixtures.js";

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

function widgetRow(id: number): Row | undefined {
  return server.rows("SELECT * FROM Widgets WHERE ID = ?", id)[0];
}

function json(answer: Answer, status = 200): Row {
  assert.equal(answer.status, status, answer.text);
  return answer.json as Row;
}

function maxId(): number {
  return server.rows("SELECT MAX(ID) AS m FROM Widgets")[0].m as number;
}

const asEditor = { "X-Test-User": "editor" };

describe("insert", () => {
  test("an insert without an id takes it from the sequence, stores the row and answers it with details", async () => {
    const next = maxId() + 1;
    const body = json(await server.call("POST", "/widgets", { name: "Fresh", quantity: 5, price: "9.99", categoryId: 1 }, asEditor));
    assert.equal(body.id, next);
    assert.equal(body.versionId, 0);
    assert.deepEqual(body.parts, []);
    assert.deepEqual(body.category, { id: 1, title: "Tools", versionId: 0 });
    assert.equal(body.createdBy, "editor");
    const row = widgetRow(next) as Row;
    assert.equal(row.Name, "Fresh");
    assert.equal(row.Price, 999, "SQLite stores a decimal(10, 2) as cents");
    assert.equal(row.CreatedBy, "editor");
    assert.equal(row.VersionID, 0);
    assert.equal(row.CategoryID, 1);
  });

  test("an id of 0 or below is replaced from the sequence, a positive id is kept", async () => {
    for (const id of [0, -5]) {
      const next = maxId() + 1;
      assert.equal(json(await server.call("POST", "/widgets", { id, name: `Id ${id}` })).id, next);
      assert.equal(widgetRow(next)?.Name, `Id ${id}`);
    }
    assert.equal(json(await server.call("POST", "/widgets", { id: 700, name: "Kept" })).id, 700);
    assert.equal(widgetRow(700)?.Name, "Kept");
    // A client's id ahead of the keys does not move them (docs/engines.md): the next drawn key is the next free one.
    const after = json(await server.call("POST", "/widgets", { name: "After 700" })).id as number;
    assert.ok(after < 700, String(after));
    assert.equal(widgetRow(after)?.Name, "After 700");
  });

  test("a positive id that a row already has, even a soft-deleted one, answers 409 and changes nothing", async () => {
    const dump = server.dump();
    for (const id of [1, 25]) {
      const answer = await server.call("POST", "/widgets", { id, name: "Duplicate" });
      assert.equal(answer.status, 409, answer.text);
      assert.deepEqual(answer.json, { status: 409, message: `Entity ${id} already exists.` });
    }
    assert.equal(server.dump(), dump);
  });

  test("an id that is not a 32-bit integer answers 400 and inserts nothing", async () => {
    const count = server.rows("SELECT COUNT(*) AS n FROM Widgets")[0].n;
    for (const id of ["abc", 1.5, 2147483648, "7", true]) {
      assert.equal((await server.call("POST", "/widgets", { id, name: "Bad id" })).status, 400, JSON.stringify(id));
    }
    assert.equal(server.rows("SELECT COUNT(*) AS n FROM Widgets")[0].n, count);
  });

  test("a body cannot set change-tracking columns or the version; JSON-ignored properties are not read", async () => {
    const body = json(
      await server.call("POST", "/widgets", {
        name: "Forged",
        createdBy: "mallory",
        createdAt: "2000-01-01T00:00:00Z",
        updatedBy: "mallory",
        updatedAt: "2000-01-01T00:00:00Z",
        deletedAt: "2000-01-01T00:00:00Z",
        deletedBy: "mallory",
        versionId: 9,
        internal: "sneaky",
        password: "hunter2",
      }),
    );
    const row = widgetRow(body.id as number) as Row;
    assert.equal(row.CreatedBy, "tester");
    assert.notEqual(row.CreatedAt, "2000-01-01T00:00:00.000Z");
    assert.notEqual(row.UpdatedBy, "mallory");
    assert.equal(row.UpdatedAt, null);
    assert.equal(row.DeletedAt, null);
    assert.notEqual(row.DeletedBy, "mallory");
    assert.equal(row.VersionID, 0);
    assert.equal(row.Internal, null, "a @JsonIgnore property is never read");
    assert.equal(row.Password, "hunter2", "a @JsonIgnoreSerialize property is read");
    assert.equal("password" in body, false, "... and never written");
    assert.equal(body.createdBy, "tester");
  });

  test("validation failures answer 422 with every failure listed, and insert nothing", async () => {
    const count = server.rows("SELECT COUNT(*) AS n FROM Widgets")[0].n;
    const answer = await server.call("POST", "/widgets", { name: "", email: "not an address", quantity: 5000 });
    assert.equal(answer.status, 422, answer.text);
    const body = answer.json as { status: number; message: string; errors: { property: string; column: string; message: string }[] };
    assert.equal(body.status, 422);
    assert.deepEqual(body.errors.map((e) => e.property).sort(), ["email", "name", "quantity"]);
    assert.deepEqual(body.errors.map((e) => e.column).sort(), ["Email", "Name", "Quantity"]);
    for (const error of body.errors) assert.ok(error.message.length > 0);
    assert.equal(server.rows("SELECT COUNT(*) AS n FROM Widgets")[0].n, count);
  });

  test("a property of the wrong JSON type answers 400 naming the property", async () => {
    for (const [property, value] of [
      ["name", 5],
      ["quantity", "many"],
      ["active", "yes"],
      ["madeAt", "yesterday"],
      ["categoryId", "Tools"],
      ["price", true],
    ] as const) {
      const answer = await server.call("POST", "/widgets", { name: "Typed", [property]: value });
      assert.equal(answer.status, 400, `${property}: ${answer.text}`);
      assert.match((answer.json as { message: string }).message, new RegExp(property));
    }
    const infinite = await server.call("POST", "/widgets", `{"name": "Infinite", "weight": -1e400}`);
    assert.equal(infinite.status, 400, infinite.text);
    assert.match((infinite.json as { message: string }).message, /weight/);
    for (const text of ["[]", "5", "null", '{"name": ', '"Widget"']) {
      assert.equal((await server.call("POST", "/widgets", text)).status, 400, text);
    }
  });
});

describe("update", () => {
  test("an update with the version writes the row and answers it reloaded from the database", async () => {
    const before = json(await server.call("GET", "/widgets/find/7"));
    const answer = json(
      await server.call("PUT", "/widgets", { ...before, name: "Renamed", createdBy: "mallory", updatedBy: "mallory" }, asEditor),
    );
    assert.equal(answer.name, "Renamed");
    assert.equal(answer.versionId, (before.versionId as number) + 1);
    assert.equal(answer.createdBy, "seed", "the created pair comes from the database, not the body");
    assert.equal(answer.createdAt, "2024-02-01T00:00:00.000Z");
    assert.equal(answer.updatedBy, "editor");
    assert.equal(typeof answer.updatedAt, "string");
    assert.equal(answer.secret, "secret 7", "columns the body left out keep nothing of the body, but the answer is the stored row");
    const row = widgetRow(7) as Row;
    assert.equal(row.Name, "Renamed");
    assert.equal(row.CreatedBy, "seed");
    assert.equal(row.UpdatedBy, "editor");
    assert.equal(row.VersionID, (before.versionId as number) + 1);
    assert.equal(row.Internal, "internal 7", "a JSON-ignored column is not overwritten by an update");
  });

  test("a stale version answers 409 and leaves the row unchanged", async () => {
    const current = json(await server.call("GET", "/widgets/find/8"));
    json(await server.call("PUT", "/widgets", { ...current, name: "First writer" }));
    const rowAfterFirst = widgetRow(8);
    const stale = await server.call("PUT", "/widgets", { ...current, name: "Second writer" });
    assert.equal(stale.status, 409, stale.text);
    assert.equal((stale.json as { status: number }).status, 409);
    assert.deepEqual(widgetRow(8), rowAfterFirst);
  });

  test("an absent or soft-deleted id answers 404; a body without id or version answers 400", async () => {
    assert.equal((await server.call("PUT", "/widgets", { id: 9999, versionId: 0, name: "Ghost" })).status, 404);
    const deleted = await server.call("PUT", "/widgets", { id: 25, versionId: 0, name: "Back from the dead" });
    assert.equal(deleted.status, 404, deleted.text);
    assert.equal(widgetRow(25)?.Name, "Widget 25");
    assert.equal((await server.call("PUT", "/widgets", { versionId: 0, name: "No id" })).status, 400);
    assert.equal((await server.call("PUT", "/widgets", { id: 9, name: "No version" })).status, 400);
    assert.equal((await server.call("PUT", "/widgets", { id: "9", versionId: 0, name: "Text id" })).status, 400);
    assert.equal(widgetRow(9)?.Name, "Widget 09");
  });

  test("validation failures on update answer 422 and leave the row unchanged", async () => {
    const current = json(await server.call("GET", "/widgets/find/10"));
    const rowBefore = widgetRow(10);
    const answer = await server.call("PUT", "/widgets", { ...current, email: "broken@", quantity: -1 });
    assert.equal(answer.status, 422, answer.text);
    assert.deepEqual((answer.json as { errors: { property: string }[] }).errors.map((e) => e.property).sort(), ["email", "quantity"]);
    assert.deepEqual(widgetRow(10), rowBefore);
  });
});

describe("a context class of the application", () => {
  test("insert and update write through a context class that overrides nextId, insert, update and refresh", async () => {
    const calls: string[] = [];
    class CountingContext extends HttpContext {
      override nextId<T extends object>(entityClass: EntityClass<T>): Promise<number> {
        calls.push("nextId");
        return super.nextId(entityClass);
      }
      override insert<T extends object>(entity: T): Promise<void> {
        calls.push("insert");
        return super.insert(entity);
      }
      override update<T extends object>(entity: T): Promise<void> {
        calls.push("update");
        return super.update(entity);
      }
      override refresh<T extends object>(entity: T): Promise<void> {
        calls.push("refresh");
        return super.refresh(entity);
      }
    }
    hooks.contextClass = CountingContext;
    try {
      const inserted = json(
        await server.call("POST", "/widgets", { name: "Counted", quantity: 1, price: "1.00", categoryId: 1 }, asEditor),
      );
      assert.deepEqual(calls, ["nextId", "insert"], "the key is drawn and the row inserted through the overrides");
      assert.equal((widgetRow(inserted.id as number) as Row).Name, "Counted");
      calls.length = 0;
      const updated = json(await server.call("PUT", "/widgets", { ...inserted, name: "Counted again" }, asEditor));
      assert.deepEqual(calls, ["update", "refresh"], "the row is updated and read again through the overrides");
      assert.equal(updated.versionId, 1);
      assert.equal((widgetRow(inserted.id as number) as Row).Name, "Counted again");
    } finally {
      delete hooks.contextClass;
    }
  });
});

describe("delete and createNew", () => {
  test("deleting an entity with @DeletedAt is a soft delete: the row stays with the Deleted pair set", async () => {
    const answer = json(await server.call("DELETE", "/widgets/11/0", undefined, asEditor));
    assert.deepEqual(answer, { id: 11, deleted: true });
    const row = widgetRow(11) as Row;
    assert.equal(typeof row.DeletedAt, "string");
    assert.equal(row.DeletedBy, "editor");
    assert.equal(row.VersionID, 1);
    assert.equal((await server.call("GET", "/widgets/11")).status, 404);
    assert.equal((await server.call("DELETE", "/widgets/11/1")).status, 404, "a soft-deleted row cannot be deleted again");
  });

  test("a hard delete removes the row; an absent id answers 404, a stale version 409 with the row kept", async () => {
    assert.equal((await server.call("DELETE", "/parts/3/5")).status, 409);
    assert.equal(server.rows("SELECT COUNT(*) AS n FROM Parts WHERE ID = 3")[0].n, 1);
    assert.deepEqual(json(await server.call("DELETE", "/parts/3/0")), { id: 3, deleted: true });
    assert.equal(server.rows("SELECT COUNT(*) AS n FROM Parts WHERE ID = 3")[0].n, 0);
    assert.deepEqual(json(await server.call("DELETE", "/parts/3/0"), 404), { status: 404, message: "Entity 3 not found." });
    const stale = await server.call("DELETE", "/widgets/12/3");
    assert.equal(stale.status, 409, stale.text);
    assert.equal(widgetRow(12)?.DeletedAt, null);
  });

  test("HttpContext.delete(class, id, version) answers 404 for an absent id and 409 for a stale version, else deletes", async () => {
    server.exec("INSERT INTO Parts VALUES (40, 2, 'Direct', 0)");
    assert.deepEqual(json(await server.call("DELETE", "/parts/direct/41/0"), 404), { status: 404, message: "Entity 41 not found." });
    assert.equal((await server.call("DELETE", "/parts/direct/40/1")).status, 409);
    assert.equal(server.rows("SELECT COUNT(*) AS n FROM Parts WHERE ID = 40")[0].n, 1);
    assert.deepEqual(json(await server.call("DELETE", "/parts/direct/40/0")), { id: 40 });
    assert.equal(server.rows("SELECT COUNT(*) AS n FROM Parts WHERE ID = 40")[0].n, 0);
  });

  test("createNew answers a new entity with an id from the sequence, entity only, and inserts nothing", async () => {
    // The key drawn just before is K: createNew draws K + 1, and a second createNew K + 2 (a drawn key is
    // never handed out again, even though createNew inserts nothing).
    const drawn = json(await server.call("POST", "/widgets", { name: "Before createNew" })).id as number;
    const count = server.rows("SELECT COUNT(*) AS n FROM Widgets")[0].n;
    const fresh = json(await server.call("GET", "/widgets/createnew"));
    assert.equal(fresh.id, drawn + 1);
    assert.equal(json(await server.call("GET", "/widgets/createnew")).id, drawn + 2);
    assert.equal(fresh.name, "");
    assert.equal(fresh.versionId, 0);
    assert.equal("parts" in fresh, false);
    assert.equal("category" in fresh, false);
    assert.equal(fresh.categoryId, null);
    assert.equal(server.rows("SELECT COUNT(*) AS n FROM Widgets")[0].n, count);
    assert.equal(widgetRow(fresh.id as number), undefined);
  });
});

/** Attaches every writer event, recording its name and whether the row is visible inside the transaction. */
function recordEvents(log: string[], failIn?: string, error: () => Error = () => new Error(`${failIn} failed`)): void {
  hooks.writer = (writer: HttpEntityWriter<Widget>, context: HttpContext) => {
    const events = [
      "onBeforeInsert",
      "onAfterInsert",
      "onBeforeUpdate",
      "onAfterUpdate",
      "onBeforeDelete",
      "onAfterDelete",
      "onApplyDetails",
    ] as const;
    for (const name of events) {
      writer[name] = async (widget: Widget) => {
        const rows = await context.query("SELECT Name, VersionID, DeletedAt FROM Widgets WHERE ID = :id", { id: widget.id });
        const state = rows.length === 0 ? "absent" : `${rows[0][0]} v${rows[0][1]}${rows[0][2] === null ? "" : " deleted"}`;
        log.push(`${name}: ${state}`);
        if (name === failIn) throw error();
        if (name === "onApplyDetails") {
          for (const part of await widget.parts.load()) {
            part.widget.id = widget.id;
            await context.insert(part);
          }
        }
      };
    }
  };
}

describe("writer events", () => {
  test("insert runs onBeforeInsert, the statement, onApplyDetails, onAfterInsert in that order, in one transaction", async () => {
    const log: string[] = [];
    recordEvents(log);
    const body = json(await server.call("POST", "/widgets", { name: "Evented", parts: [{ label: "Cog" }, { label: "Gear" }] }));
    assert.deepEqual(log, ["onBeforeInsert: absent", "onApplyDetails: Evented v0", "onAfterInsert: Evented v0"]);
    assert.deepEqual(
      server.rows("SELECT Label FROM Parts WHERE WidgetID = ? ORDER BY Label", body.id).map((r) => r.Label),
      ["Cog", "Gear"],
    );
    assert.deepEqual((body.parts as { label: string }[]).map((p) => p.label).sort(), ["Cog", "Gear"]);
  });

  test("update runs onBeforeUpdate, the statement, onApplyDetails, onAfterUpdate in that order", async () => {
    const log: string[] = [];
    const current = json(await server.call("GET", "/widgets/find/13"));
    recordEvents(log);
    json(await server.call("PUT", "/widgets", { ...current, name: "Evented 13" }));
    assert.deepEqual(log, ["onBeforeUpdate: Widget 13 v0", "onApplyDetails: Evented 13 v1", "onAfterUpdate: Evented 13 v1"]);
  });

  test("delete runs onBeforeDelete, the statement, onAfterDelete in that order", async () => {
    const log: string[] = [];
    recordEvents(log);
    json(await server.call("DELETE", "/widgets/14/0"));
    assert.deepEqual(log, ["onBeforeDelete: Widget 14 v0", "onAfterDelete: Widget 14 v1 deleted"]);
  });

  for (const failIn of ["onBeforeInsert", "onApplyDetails", "onAfterInsert"]) {
    test(`an exception in ${failIn} answers 500 and leaves no row of the insert, details included`, async () => {
      const dump = server.dump();
      const log: string[] = [];
      recordEvents(log, failIn);
      const answer = await server.call("POST", "/widgets", { name: `Doomed ${failIn}`, parts: [{ label: "Lost" }] });
      assert.equal(answer.status, 500, answer.text);
      assert.deepEqual(Object.keys(answer.json as object).sort(), ["message", "status", "taskId"]);
      assert.equal(server.dump(), dump);
      assert.equal(server.rows("SELECT COUNT(*) AS n FROM Widgets WHERE Name LIKE 'Doomed%'")[0].n, 0);
      assert.equal(server.rows("SELECT COUNT(*) AS n FROM Parts WHERE Label = 'Lost'")[0].n, 0);
    });
  }

  for (const failIn of ["onBeforeUpdate", "onApplyDetails", "onAfterUpdate"]) {
    test(`an exception in ${failIn} answers 500 and leaves the row as it was`, async () => {
      const current = json(await server.call("GET", "/widgets/find/15"));
      const dump = server.dump();
      recordEvents([], failIn);
      const answer = await server.call("PUT", "/widgets", { ...current, name: "Never", parts: [{ label: "Lost" }] });
      assert.equal(answer.status, 500, answer.text);
      assert.equal(server.dump(), dump);
      assert.equal(widgetRow(15)?.Name, "Widget 15");
    });
  }

  for (const failIn of ["onBeforeDelete", "onAfterDelete"]) {
    test(`an exception in ${failIn} answers its status and leaves the row undeleted`, async () => {
      const dump = server.dump();
      recordEvents([], failIn, () => new HttpError(409, "Widget 16 is still in use."));
      const answer = await server.call("DELETE", "/widgets/16/0");
      assert.equal(answer.status, 409, answer.text);
      assert.deepEqual(answer.json, { status: 409, message: "Widget 16 is still in use." });
      assert.equal(server.dump(), dump);
      assert.equal(widgetRow(16)?.DeletedAt, null);
    });
  }

  test("the session stays usable after a rolled-back write: the next request writes normally", async () => {
    recordEvents([], "onAfterInsert");
    assert.equal((await server.call("POST", "/widgets", { name: "Doomed again" })).status, 500);
    delete hooks.writer;
    const body = json(await server.call("POST", "/widgets", { name: "Survivor" }));
    assert.equal(widgetRow(body.id as number)?.Name, "Survivor");
    const parts = server.rows("SELECT COUNT(*) AS n FROM Parts")[0].n;
    assert.equal(typeof parts, "number");
    void Filter;
    void Part;
  });
});
