// @JsonName over HTTP: the wire name replaces the field name everywhere a client sees one (answers,
// bodies, filter bodies, metadata, validation errors, the OpenAPI schemas), on a real server and SQLite file.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { openDirectSqlite } from "../../support/direct-sqlite.js";
import {
  Column,
  DetailColumn,
  type EntityClass,
  JsonName,
  Lazy,
  LazyList,
  PrimaryKey,
  Range,
  Required,
  Sequence,
  Table,
  Type,
  VersionColumn,
} from "tenon";
import { HttpContext, HttpEntityController, HttpServer } from "tenon/http";
import { SqliteDatabase } from "tenon/sqlite";
import { ask, type Answer } from "../http-test-client.js";

@Table("Owners")
@Sequence("OwnersID")
class Owner {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @JsonName("full_name") @Column("Name", Type.varchar(50)) name = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

@Table("Entries")
@Sequence("EntriesID")
class Entry {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column(
    "AccountID",
    Type.lazy(() => Account),
  )
  account = new Lazy<Account>();
  @Column("Label", Type.varchar(50)) label = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

@Table("Accounts")
@Sequence("AccountsID")
class Account {
  @PrimaryKey @JsonName("account_id") @Column("ID", Type.int32) id = 0;
  @Required() @JsonName("display_name") @Column("Name", Type.varchar(20)) name = "";
  @Range(0, 100) @JsonName("credit_limit") @Column("CreditMax", Type.int32) creditLimit = 0;
  @JsonName("owner")
  @Column(
    "OwnerID",
    Type.lazy(() => Owner),
  )
  person = new Lazy<Owner>();
  @JsonName("entries") @DetailColumn("ID", "AccountID", () => Entry) lines = new LazyList<Entry>();
  @JsonName("version") @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

let database: SqliteDatabase;

class AccountContext implements AsyncDisposable {
  #orm: HttpContext | undefined;
  get orm(): HttpContext {
    return (this.#orm ??= new HttpContext(database));
  }
  async [Symbol.asyncDispose](): Promise<void> {
    await this.#orm?.dispose();
  }
}

class AccountController extends HttpEntityController<AccountContext, Account> {
  protected readonly entityClass: EntityClass<Account> = Account;
  protected get httpContext(): HttpContext {
    return this.context.orm;
  }
}

let server: HttpServer<AccountContext>;
let directory: string;
let file: string;

function call(method: string, path: string, body?: unknown): Promise<Answer> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return ask(server.port, path, { method, body: text, headers: text === undefined ? {} : { "Content-Type": "application/json" } });
}

function rows(sql: string): Record<string, unknown>[] {
  const db = openDirectSqlite(file, { readonly: true });
  try {
    return db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

before(async () => {
  directory = mkdtempSync(join(tmpdir(), "tenon-jsonname-"));
  file = join(directory, "accounts.sqlite");
  const db = openDirectSqlite(file);
  db.exec(`CREATE TABLE Owners (ID INTEGER NOT NULL PRIMARY KEY, Name TEXT NOT NULL, VersionID INTEGER NOT NULL);
    CREATE TABLE Accounts (ID INTEGER NOT NULL PRIMARY KEY, Name TEXT NOT NULL, CreditMax INTEGER NOT NULL, OwnerID INTEGER, VersionID INTEGER NOT NULL);
    CREATE TABLE Entries (ID INTEGER NOT NULL PRIMARY KEY, AccountID INTEGER NOT NULL, Label TEXT NOT NULL, VersionID INTEGER NOT NULL);
    INSERT INTO Owners VALUES (1, 'Olga Owner', 0);
    INSERT INTO Accounts VALUES (1, 'Alpha', 10, 1, 0), (2, 'Beta', 50, NULL, 0), (3, 'Gamma', 30, 1, 0);
    INSERT INTO Entries VALUES (1, 1, 'first', 0), (2, 1, 'second', 0);`);
  db.close();
  database = new SqliteDatabase({ filename: file, name: file });
  server = new HttpServer(AccountContext);
  server.port = 0;
  server.addBindAddress("127.0.0.1");
  server.allowAnonymous = true;
  server.registerController(AccountController, "/accounts");
  await server.start();
});

after(async () => {
  await server.stop();
  await database.close();
  rmSync(directory, { recursive: true, force: true });
});

type Row = Record<string, unknown>;

describe("@JsonName on the wire", () => {
  test("an answer names every renamed property by its wire name, a reference as <name>Id and <name>, details too", async () => {
    const answer = await call("GET", "/accounts/1");
    assert.equal(answer.status, 200, answer.text);
    const json = answer.json as Row;
    assert.deepEqual(Object.keys(json), ["account_id", "display_name", "credit_limit", "ownerId", "owner", "entries", "version"]);
    assert.deepEqual(json.owner, { id: 1, full_name: "Olga Owner", versionId: 0 });
    assert.deepEqual(
      (json.entries as Row[]).map((entry) => entry.label),
      ["first", "second"],
    );
    const page = (await call("GET", "/accounts")).json as { data: Row[] };
    assert.deepEqual(Object.keys(page.data[0]).slice(0, 4), ["account_id", "display_name", "credit_limit", "ownerId"]);
  });

  test("a body is read by wire names: an insert, an update and a patch by field names change nothing", async () => {
    const inserted = await call("POST", "/accounts", { display_name: "Delta", credit_limit: 40, ownerId: 1, name: "ignored" });
    assert.equal(inserted.status, 200, inserted.text);
    const id = (inserted.json as Row).account_id as number;
    assert.deepEqual(rows(`SELECT Name, CreditMax, OwnerID FROM Accounts WHERE ID = ${id}`), [
      { Name: "Delta", CreditMax: 40, OwnerID: 1 },
    ]);
    const updated = await call("PUT", "/accounts", { account_id: id, version: 0, display_name: "Delta 2", credit_limit: 41 });
    assert.equal(updated.status, 200, updated.text);
    assert.equal((updated.json as Row).version, 1);
    const patched = await call("PATCH", `/accounts/${id}`, { version: 1, credit_limit: 42 });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(rows(`SELECT Name, CreditMax, VersionID FROM Accounts WHERE ID = ${id}`), [
      { Name: "Delta 2", CreditMax: 42, VersionID: 2 },
    ]);
  });

  test("an update that names the id or the version by field name answers 400 naming the wire name, and writes nothing", async () => {
    const before = rows("SELECT * FROM Accounts ORDER BY ID");
    const noId = await call("PUT", "/accounts", { id: 2, versionId: 0, display_name: "Nope" });
    assert.equal(noId.status, 400, noId.text);
    assert.match((noId.json as Row).message as string, /account_id/);
    const noVersion = await call("PUT", "/accounts", { account_id: 2, versionId: 0, display_name: "Nope" });
    assert.equal(noVersion.status, 400, noVersion.text);
    assert.match((noVersion.json as Row).message as string, /\bversion\b/);
    const patch = await call("PATCH", "/accounts/2", { versionId: 0, display_name: "Nope" });
    assert.equal(patch.status, 400, patch.text);
    const wrongType = await call("POST", "/accounts", { display_name: "Typed", credit_limit: "many" });
    assert.equal(wrongType.status, 400, wrongType.text);
    assert.match((wrongType.json as Row).message as string, /credit_limit/);
    assert.deepEqual(rows("SELECT * FROM Accounts ORDER BY ID"), before);
  });

  test("validation failures name the wire name", async () => {
    const answer = await call("POST", "/accounts", { display_name: "", credit_limit: 101 });
    assert.equal(answer.status, 422, answer.text);
    const errors = (answer.json as { errors: Row[] }).errors;
    assert.deepEqual(errors.map((error) => error.property).sort(), ["credit_limit", "display_name"]);
    const nulls = await call("PATCH", "/accounts/2", { version: 0, display_name: null });
    assert.equal(nulls.status, 422, nulls.text);
    assert.deepEqual(
      (nulls.json as { errors: Row[] }).errors.map((error) => error.property),
      ["display_name"],
    );
  });

  test("a filter body names columns by wire name (or column name); the field name of a renamed property is unknown", async () => {
    const answer = await call("POST", "/accounts/select", {
      where: [{ columnName: "credit_limit", condition: ">=", value: 30 }],
      orderBy: [{ columnName: "display_name", direction: "DESC" }],
    });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(
      (answer.json as { data: Row[] }).data.map((row) => row.display_name),
      ["Gamma", "Delta 2", "Beta"],
    );
    const byOwner = await call("POST", "/accounts/select", { where: [{ columnName: "ownerId", condition: "IS NULL" }] });
    assert.deepEqual(
      (byOwner.json as { data: Row[] }).data.map((row) => row.account_id),
      [2, 4], // account 4 lost its owner to the PUT above, which replaces the whole entity
    );
    for (const name of ["creditLimit", "personId"]) {
      const refused = await call("POST", "/accounts/select", { where: [{ columnName: name, condition: "=", value: 1 }] });
      assert.equal(refused.status, 400, refused.text);
      assert.match((refused.json as Row).message as string, new RegExp(`Column ${name} cannot be used in a filter`));
    }
    const badValue = await call("POST", "/accounts/select", { where: [{ columnName: "credit_limit", condition: "=", value: "x" }] });
    assert.equal(badValue.status, 400, badValue.text);
    assert.match((badValue.json as Row).message as string, /credit_limit/);
  });

  test("the metadata and the OpenAPI schemas publish the wire names", async () => {
    const metadata = (await call("GET", "/accounts/metadata")).json as { primaryKey: string; versionColumn: string; properties: Row[] };
    assert.equal(metadata.primaryKey, "account_id");
    assert.equal(metadata.versionColumn, "version");
    assert.deepEqual(
      metadata.properties.map((property) => property.name),
      ["account_id", "display_name", "credit_limit", "ownerId", "version", "entries"],
    );
    const document = server.openApi() as unknown as { components: { schemas: Record<string, { properties: Row }> } };
    const schemas = document.components.schemas;
    assert.deepEqual(Object.keys(schemas.Account.properties), [
      "account_id",
      "display_name",
      "credit_limit",
      "ownerId",
      "owner",
      "version",
      "entries",
    ]);
    assert.ok("full_name" in schemas.Owner.properties);
    const filterColumns = JSON.stringify(schemas.AccountFilterCondition);
    assert.match(filterColumns, /"credit_limit"/);
    assert.doesNotMatch(filterColumns, /"creditLimit"/);
  });

  test("a bulk delete item names the key and version by their wire names, in the body and in its schema", async () => {
    const inserted = await call("POST", "/accounts", { display_name: "Bulk", credit_limit: 5 });
    assert.equal(inserted.status, 200, inserted.text);
    const id = (inserted.json as Row).account_id as number;
    const byField = await call("POST", "/accounts/bulk", { delete: [{ id, versionId: 0 }] });
    assert.equal(byField.status, 400, byField.text);
    assert.match((byField.json as Row).message as string, /\baccount_id\b.*\bversion\b/);
    assert.deepEqual(rows(`SELECT COUNT(*) AS n FROM Accounts WHERE ID = ${id}`), [{ n: 1 }]);
    const byWireName = await call("POST", "/accounts/bulk", { delete: [{ account_id: id, version: 0 }] });
    assert.equal(byWireName.status, 200, byWireName.text);
    assert.deepEqual((byWireName.json as { deleted: number[] }).deleted, [id]);
    assert.deepEqual(rows(`SELECT COUNT(*) AS n FROM Accounts WHERE ID = ${id}`), [{ n: 0 }]);
    type Schema = { $ref?: string; required?: string[]; properties?: Record<string, Schema>; items?: Schema };
    const document = server.openApi() as unknown as {
      paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: Schema }> } }>>;
      components: { schemas: Record<string, Schema> };
    };
    const items = document.paths["/accounts/bulk"].post.requestBody.content["application/json"].schema.properties?.delete.items;
    const item = document.components.schemas[items?.$ref?.split("/").at(-1) ?? ""];
    assert.deepEqual(item.required, ["account_id", "version"]);
    assert.deepEqual(Object.keys(item.properties ?? {}), ["account_id", "version"]);
  });
});
