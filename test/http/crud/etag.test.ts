// ETag, If-None-Match and If-Match over HTTP on a real server and SQLite file: GET of one entity answers
// its tag, a matching If-None-Match a 304 without body, and PUT, PATCH and DELETE take the version from
// If-Match (412 when stale, 400 when it disagrees with the body or address, 428 where required).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { openDirectSqlite } from "../../support/direct-sqlite.js";
import { Column, type EntityClass, PrimaryKey, Sequence, Table, Type, VersionColumn } from "tenon";
import { HttpContext, HttpEntityController, HttpServer } from "tenon/http";
import { SqliteDatabase } from "tenon/sqlite";
import { ask, type Answer } from "../http-test-client.js";
import { seedWidgets, startCrudServer, type CrudServer } from "./crud-fixtures.js";

type Row = Record<string, unknown>;

let widgets: CrudServer;

before(async () => {
  widgets = await startCrudServer(seedWidgets);
});
after(async () => {
  await widgets.close();
});

function etag(answer: Answer): string {
  assert.equal(answer.status, 200, answer.text);
  const tag = answer.headers.etag;
  assert.equal(typeof tag, "string", "an ETag header");
  return tag as string;
}

describe("ETag and If-None-Match on GET of one entity", () => {
  test("GET answers a strong tag <id>-<version>, extended with a hash when the answer embeds other entities", async () => {
    assert.match(etag(await widgets.call("GET", "/widgets/7")), /^"7-0-[0-9a-f]{8}"$/, "widget 7 embeds its category");
    assert.equal(etag(await widgets.call("GET", "/widgets/3")), '"3-0"', "widget 3 has no category and no parts");
    assert.equal(etag(await widgets.call("GET", "/widgets/find/7")), '"7-0"', "find embeds nothing");
    assert.match(etag(await widgets.call("GET", "/widgets/1")), /^"1-0-[0-9a-f]{8}"$/, "widget 1 embeds its parts");
    const list = await widgets.call("GET", "/widgets");
    assert.equal(list.headers.etag, undefined, "a list has no tag");
  });

  test("a change of an embedded entity changes the tag, though the entity's own version stays", async () => {
    const before = etag(await widgets.call("GET", "/widgets/4"));
    widgets.exec("UPDATE Categories SET Title = 'Toys and games', VersionID = VersionID + 1 WHERE ID = 1");
    const after = etag(await widgets.call("GET", "/widgets/4"));
    assert.notEqual(after, before);
    assert.match(after, /^"4-0-/);
    widgets.exec("UPDATE Parts SET Label = 'Grip', VersionID = VersionID + 1 WHERE ID = 1");
    const first = etag(await widgets.call("GET", "/widgets/1"));
    widgets.exec("UPDATE Parts SET Label = 'Handle', VersionID = VersionID + 1 WHERE ID = 1");
    assert.notEqual(etag(await widgets.call("GET", "/widgets/1")), first, "a detail's new version changes the tag");
  });

  test("If-None-Match with the current tag answers 304 with the tag and no body; a stale one the entity", async () => {
    const tag = etag(await widgets.call("GET", "/widgets/5"));
    for (const value of [tag, `W/${tag}`, `"0-0", ${tag}`, "*"]) {
      const answer = await widgets.call("GET", "/widgets/5", undefined, { "If-None-Match": value });
      assert.equal(answer.status, 304, `${value}: ${answer.text}`);
      assert.equal(answer.text, "");
      assert.equal(answer.headers.etag, tag);
      assert.equal(answer.headers["content-length"], undefined);
      assert.equal(answer.headers["content-type"], undefined);
    }
    const stale = await widgets.call("GET", "/widgets/5", undefined, { "If-None-Match": '"5-9"' });
    assert.equal(stale.status, 200, stale.text);
    assert.equal((stale.json as Row).id, 5);
    const absent = await widgets.call("GET", "/widgets/999", undefined, { "If-None-Match": "*" });
    assert.equal(absent.status, 404, absent.text);
  });

  test("an If-None-Match that is not a list of entity tags answers 400", async () => {
    for (const value of ["5-0", '"5-0', "W/5-0", '"5-0" "5-1"', '"5 0"', '"5-0",,x', 'w/"5-0"', ","]) {
      const answer = await widgets.call("GET", "/widgets/5", undefined, { "If-None-Match": value });
      assert.equal(answer.status, 400, `${value}: ${answer.text}`);
      assert.match((answer.json as Row).message as string, /If-None-Match header must be \* or a comma-separated list of entity tags/);
    }
  });
});

describe("If-Match on PUT, PATCH and DELETE", () => {
  test("PUT with the current tag and no version in the body updates and answers the new tag, which the next PATCH can send", async () => {
    const current = (await widgets.call("GET", "/widgets/find/8")).json as Row;
    const { versionId: _version, ...body } = current;
    const tag = etag(await widgets.call("GET", "/widgets/8"));
    const answer = await widgets.call("PUT", "/widgets", { ...body, name: "Tagged" }, { "If-Match": tag });
    assert.equal(answer.status, 200, answer.text);
    assert.equal((answer.json as Row).versionId, 1);
    assert.equal(widgets.rows("SELECT Name FROM Widgets WHERE ID = 8")[0].Name, "Tagged");
    assert.equal(etag(await widgets.call("GET", "/widgets/8")), answer.headers.etag, "the PUT answered the new tag");
    const patched = await widgets.call("PATCH", "/widgets/8", { name: "Chained" }, { "If-Match": answer.headers.etag as string });
    assert.equal(patched.status, 200, patched.text);
    assert.match(patched.headers.etag as string, /^"8-2/);
  });

  test("a stale tag, a tag of another entity or of an absent one answers 412, and nothing is written", async () => {
    const body = { ...((await widgets.call("GET", "/widgets/find/9")).json as Row) };
    delete body.versionId;
    const dump = widgets.dump();
    for (const [path, method, tag, sent] of [
      ["/widgets", "PUT", '"9-5"', body],
      ["/widgets", "PUT", '"10-0"', body],
      ["/widgets/9", "PATCH", '"9-3"', { name: "x" }],
      ["/widgets/999", "PATCH", '"999-0"', { name: "x" }],
      ["/widgets/9", "DELETE", '"9-2"', undefined],
      ["/widgets/999", "DELETE", '"999-0"', undefined],
      ["/widgets/25", "DELETE", '"25-0"', undefined],
    ] as const) {
      const answer = await widgets.call(method, path, sent, { "If-Match": tag });
      assert.equal(answer.status, 412, `${method} ${path} ${tag}: ${answer.text}`);
      assert.match((answer.json as Row).message as string, /does not match the If-Match entity tag/);
    }
    assert.equal(widgets.dump(), dump);
  });

  test("a tag whose version disagrees with the body's or the address's answers 400, and nothing is written", async () => {
    const body = (await widgets.call("GET", "/widgets/find/10")).json as Row;
    const dump = widgets.dump();
    for (const [method, path, sent] of [
      ["PUT", "/widgets", body],
      ["PATCH", "/widgets/10", { versionId: 0, name: "x" }],
      ["DELETE", "/widgets/10/0", undefined],
    ] as const) {
      const answer = await widgets.call(method, path, sent, { "If-Match": '"10-1"' });
      assert.equal(answer.status, 400, `${method} ${path}: ${answer.text}`);
      assert.match(
        (answer.json as Row).message as string,
        /If-Match entity tag and the body's or address's versionId name different versions/,
      );
    }
    assert.equal(widgets.dump(), dump);
  });

  test("an If-Match in the wrong syntax, weak, listing several tags or not issued by this API answers 400", async () => {
    const dump = widgets.dump();
    for (const value of ["11-0", '"11-0', 'W/"11-0"', '"11-0", "11-1"', '"abc"', '"11-0-zz"', '"11-x"', '"99999999999-0"', ""]) {
      for (const [method, path, sent] of [
        ["PATCH", "/widgets/11", { name: "x" }],
        ["DELETE", "/widgets/11", undefined],
      ] as const) {
        const answer = await widgets.call(method, path, sent, { "If-Match": value });
        assert.equal(answer.status, 400, `${method} ${value}: ${answer.text}`);
        assert.match((answer.json as Row).message as string, /If-Match/);
      }
    }
    assert.equal(widgets.dump(), dump);
  });

  test("PATCH takes the version from If-Match; DELETE {base}/{id} deletes at the tag's version, and needs the header", async () => {
    const tag = etag(await widgets.call("GET", "/widgets/12"));
    const patched = await widgets.call("PATCH", "/widgets/12", { quantity: 5 }, { "If-Match": tag });
    assert.equal(patched.status, 200, patched.text);
    assert.equal((patched.json as Row).versionId, 1);
    const missing = await widgets.call("DELETE", "/widgets/12");
    assert.equal(missing.status, 428, missing.text);
    assert.match((missing.json as Row).message as string, /needs an If-Match header/);
    const stale = await widgets.call("DELETE", "/widgets/12", undefined, { "If-Match": tag });
    assert.equal(stale.status, 412, stale.text);
    const deleted = await widgets.call("DELETE", "/widgets/12", undefined, { "If-Match": '"12-1"' });
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(deleted.json, { id: 12, deleted: true });
    assert.notEqual(widgets.rows("SELECT DeletedAt FROM Widgets WHERE ID = 12")[0].DeletedAt, null);
    const withBoth = await widgets.call("DELETE", "/widgets/13/0", undefined, { "If-Match": '"13-0"' });
    assert.equal(withBoth.status, 200, withBoth.text);
    const star = await widgets.call("DELETE", "/widgets/14", undefined, { "If-Match": "*" });
    assert.equal(star.status, 200, star.text);
  });

  test("without If-Match the version in the body still works, and a stale one is still a 409", async () => {
    const body = (await widgets.call("GET", "/widgets/find/15")).json as Row;
    assert.equal((await widgets.call("PUT", "/widgets", { ...body, name: "Plain" })).status, 200);
    assert.equal((await widgets.call("PUT", "/widgets", { ...body, name: "Stale" })).status, 409);
  });
});

// A server of its own: an entity without a version column, and a controller that requires If-Match.

@Table("Notes")
@Sequence("NotesID")
class Note {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Text", Type.varchar(50)) text = "";
}

@Table("Memos")
@Sequence("MemosID")
class Memo {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Text", Type.varchar(50)) text = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

let database: SqliteDatabase;

class MemoContext implements AsyncDisposable {
  #orm: HttpContext | undefined;
  get orm(): HttpContext {
    return (this.#orm ??= new HttpContext(database));
  }
  async [Symbol.asyncDispose](): Promise<void> {
    await this.#orm?.dispose();
  }
}

class NoteController extends HttpEntityController<MemoContext, Note> {
  protected readonly entityClass: EntityClass<Note> = Note;
  protected get httpContext(): HttpContext {
    return this.context.orm;
  }
}

class StrictMemoController extends HttpEntityController<MemoContext, Memo> {
  protected readonly entityClass: EntityClass<Memo> = Memo;
  protected get httpContext(): HttpContext {
    return this.context.orm;
  }
  protected override get requireIfMatch(): boolean {
    return true;
  }
}

describe("entities without a version column, and requireIfMatch", () => {
  let server: HttpServer<MemoContext>;
  let directory: string;
  let file: string;
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> =>
    ask(server.port, path, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: body === undefined ? headers : { "Content-Type": "application/json", ...headers },
    });
  const memos = (): Row[] => {
    const db = openDirectSqlite(file, { readonly: true });
    try {
      return db.prepare("SELECT * FROM Memos ORDER BY ID").all() as Row[];
    } finally {
      db.close();
    }
  };

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), "tenon-etag-"));
    file = join(directory, "memos.sqlite");
    const db = openDirectSqlite(file);
    db.exec(`CREATE TABLE Notes (ID INTEGER NOT NULL PRIMARY KEY, Text TEXT NOT NULL);
      CREATE TABLE Memos (ID INTEGER NOT NULL PRIMARY KEY, Text TEXT NOT NULL, VersionID INTEGER NOT NULL);
      INSERT INTO Notes VALUES (1, 'one'), (2, 'two');
      INSERT INTO Memos VALUES (1, 'one', 0), (2, 'two', 0);`);
    db.close();
    database = new SqliteDatabase({ filename: file, name: file });
    server = new HttpServer(MemoContext);
    server.port = 0;
    server.addBindAddress("127.0.0.1");
    server.allowAnonymous = true;
    server.registerController(NoteController, "/notes");
    server.registerController(StrictMemoController, "/memos");
    await server.start();
  });
  after(async () => {
    await server.stop();
    await database.close();
    rmSync(directory, { recursive: true, force: true });
  });

  test("an entity without a version column answers no ETag, never 304, and no If-Match tag can match it", async () => {
    const answer = await call("GET", "/notes/1", undefined, { "If-None-Match": "*" });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.headers.etag, undefined);
    assert.equal((await call("GET", "/notes/1", undefined, { "If-None-Match": "nonsense" })).status, 400);
    const put = await call("PUT", "/notes", { id: 1, text: "changed" }, { "If-Match": '"1-0"' });
    assert.equal(put.status, 412, put.text);
    assert.equal((await call("PUT", "/notes", { id: 1, text: "changed" })).status, 200);
  });

  test("with requireIfMatch, a PUT, PATCH or DELETE without If-Match answers 428 and writes nothing; with it, 200", async () => {
    const before = memos();
    for (const [method, path, body] of [
      ["PUT", "/memos", { id: 1, versionId: 0, text: "x" }],
      ["PATCH", "/memos/1", { versionId: 0, text: "x" }],
      ["DELETE", "/memos/1/0", undefined],
      ["DELETE", "/memos/1", undefined],
    ] as const) {
      const answer = await call(method, path, body);
      assert.equal(answer.status, 428, `${method} ${path}: ${answer.text}`);
      assert.match((answer.json as Row).message as string, /needs an If-Match header/);
    }
    assert.deepEqual(memos(), before);
    const tag = (await call("GET", "/memos/1")).headers.etag as string;
    assert.equal(tag, '"1-0"');
    const put = await call("PUT", "/memos", { id: 1, text: "tagged" }, { "If-Match": tag });
    assert.equal(put.status, 200, put.text);
    const deleted = await call("DELETE", "/memos/1", undefined, { "If-Match": '"1-1"' });
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(memos(), [{ ID: 2, Text: "two", VersionID: 0 }]);
  });
});
