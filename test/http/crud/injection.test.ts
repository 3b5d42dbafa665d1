// No text of a filter body ever reaches the SQL: an injection corpus over HTTP, each answering 400 or
// matching nothing, with every table of the SQLite file unchanged afterwards.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { seedWidgets, startCrudServer, type CrudServer } from "./crud-fixtures.js";

let server: CrudServer;
let dumpBefore: string;
let hashBefore: string;

before(async () => {
  server = await startCrudServer(seedWidgets);
  dumpBefore = server.dump();
  hashBefore = server.fileHash();
});
after(async () => {
  await server.close();
});

/** Text payloads aimed at string-building SQL: quotes, comments, statement separators, look-alikes. */
const payloads = [
  "' OR 1=1 --",
  "' OR '1'='1",
  '" OR "1"="1',
  "x' OR 1=1 /*",
  "*/ OR 1=1 /*",
  "'; DROP TABLE Widgets; --",
  "1; DELETE FROM Widgets",
  "') OR ('a'='a",
  "' UNION SELECT ID, Secret, Password FROM Widgets --",
  "Acme Anvil' --",
  "Acme Anvil'; UPDATE Widgets SET Name = 'pwned'; --",
  "\\' OR 1=1 --",
  "%' OR '%'='",
  "＇ OR 1=1 --",
  "Acme Anvil＇ OR ＇1＇=＇1",
  "ʼ OR 1=1 --",
  "‘ OR 1=1 --",
  "＂; DROP TABLE Widgets; --",
  "；DROP TABLE Widgets",
  "－－",
  "\u0000' OR 1=1 --",
  "' OR 1=1 \u2028--",
  "$1",
  ":p0",
  "?",
  "p0",
  "@p0",
];

/** Column names that carry SQL or try to name something else. */
const columnNames = [
  "name; DROP TABLE Widgets",
  "name --",
  "name /*",
  "1=1 OR name",
  "name) OR (1=1",
  "Name COLLATE NOCASE",
  "Widgets.Name",
  '"Name"',
  "`Name`",
  "[Name]",
  "name＇",
  "ｎａｍｅ",
  "(SELECT Password FROM Widgets)",
  "Secret",
  "Password",
  "Internal",
  "sqlite_master",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "name ",
  " name",
  "name\u0000",
  "*",
  "ID, Password",
];

type Page = { count: number; data: Record<string, unknown>[] };

async function selectStatus(body: unknown): Promise<{ status: number; page?: Page; text: string }> {
  const answer = await server.call("POST", "/widgets/select", body);
  return { status: answer.status, page: answer.status === 200 ? (answer.json as Page) : undefined, text: answer.text };
}

test("text values aimed at the SQL are bound as plain text and match nothing", async () => {
  for (const value of payloads) {
    for (const condition of ["=", "<>", "LIKE", "NOT LIKE", ">"]) {
      const outcome = await selectStatus({ where: [{ columnName: "name", condition, value }] });
      if (value.includes("\u0000")) {
        // A NUL character is refused in every text (docs/crud.md), before any SQL is built.
        assert.equal(outcome.status, 400, `${condition} ${JSON.stringify(value)}: ${outcome.text}`);
        continue;
      }
      assert.equal(outcome.status, 200, `${condition} ${JSON.stringify(value)}: ${outcome.text}`);
      const page = outcome.page as Page;
      if (condition === "=" || condition === "LIKE") assert.equal(page.count, 0, `${condition} ${JSON.stringify(value)} matched rows`);
      // Whatever the others match is what the comparison itself selects: never more than the live rows.
      assert.ok(page.count <= 24, `${condition} ${JSON.stringify(value)}`);
      for (const row of page.data) assert.equal("password" in row, false);
    }
    const inOutcome = await selectStatus({ where: [{ columnName: "name", condition: "IN", value: [value, value + "x"] }] });
    if (value.includes("\u0000")) assert.equal(inOutcome.status, 400, `IN ${JSON.stringify(value)}`);
    else assert.equal(inOutcome.page?.count, 0, `IN ${JSON.stringify(value)}`);
  }
});

test("the same text aimed at a number, date or boolean column answers 400", async () => {
  for (const value of payloads) {
    for (const column of ["quantity", "id", "price", "madeAt", "active", "categoryId"]) {
      const outcome = await selectStatus({ where: [{ columnName: column, condition: "=", value }] });
      assert.equal(outcome.status, 400, `${column} = ${JSON.stringify(value)}: ${outcome.text}`);
    }
  }
});

test("column names carrying SQL, look-alikes or hidden columns all answer the one 400 text", async () => {
  for (const name of columnNames) {
    const expected = `Column ${name} cannot be used in a filter: it is not a column of this entity, or it is marked as not filterable.`;
    for (const body of [
      { where: [{ columnName: name, condition: "=", value: "x" }] },
      { where: [{ columnName: name, condition: "IS NULL" }] },
      {
        where: [
          {
            or: [
              { columnName: "id", condition: "=", value: 1 },
              { columnName: name, condition: "=", value: 1 },
            ],
          },
        ],
      },
      { orderBy: [{ columnName: name, direction: "ASC" }] },
    ]) {
      const answer = await server.call("POST", "/widgets/select", body);
      assert.equal(answer.status, 400, `${JSON.stringify(name)}: ${answer.text}`);
      assert.deepEqual(answer.json, { status: 400, message: expected });
    }
  }
});

test("conditions, directions, property names and paging values carrying SQL answer 400", async () => {
  const bodies: unknown[] = [
    { where: [{ columnName: "id", condition: "= 1 OR 1=1 --", value: 1 }] },
    { where: [{ columnName: "id", condition: "=1;", value: 1 }] },
    { where: [{ columnName: "id", condition: "IS NULL OR 1=1" }] },
    { where: [{ columnName: "id", condition: "IN (SELECT ID FROM Widgets) --", value: [1] }] },
    { where: [{ columnName: "id", condition: "＝", value: 1 }] },
    { where: [{ columnName: "id", condition: "LIKE/**/", value: "1" }] },
    { where: [{ columnName: "id", condition: "=", value: 1, "value) OR (1=1": 1 }] },
    { where: [{ columnName: "id", condition: "=", value: "1 OR 1=1" }] },
    { where: [{ columnName: "id", condition: "<>", value: "0; DELETE FROM Widgets" }] },
    { orderBy: [{ columnName: "id", direction: "ASC; DROP TABLE Widgets" }] },
    { orderBy: [{ columnName: "id", direction: "ASC --" }] },
    { orderBy: [{ columnName: "id", direction: "(SELECT 1)" }] },
    { orderBy: [{ columnName: "id", direction: "ＡＳＣ" }] },
    { start: "0; DROP TABLE Widgets" },
    { start: "1 OR 1=1" },
    { limit: "1; DELETE FROM Widgets" },
    { limit: "ALL" },
    { "where; DROP TABLE Widgets": [] },
    { includeDeleted: "1=1" },
    { where: [{ or: [{ columnName: "id", condition: "=", value: 1 }], "1": "OR 1=1" }] },
    { where: [{ columnName: "name", condition: "=", value: { sql: "1=1" } }] },
    { where: [{ columnName: "name", condition: "=", value: ["' OR 1=1 --"] }] },
    { where: [{ columnName: "name", condition: "IN", value: [["' OR 1=1 --"]] }] },
  ];
  for (const body of bodies) {
    const answer = await server.call("POST", "/widgets/select", body);
    assert.equal(answer.status, 400, `${JSON.stringify(body)}: ${answer.text}`);
  }
});

test("a raw body with SQL or prototype keys answers 400 or matches by the rules", async () => {
  for (const text of [
    '{"where": [], "__proto__": {"includeDeleted": true}}',
    '{"constructor": {"prototype": {"includeDeleted": true}}}',
    "SELECT * FROM Widgets",
    "'; DROP TABLE Widgets; --",
    '{"where": [{"columnName": "id", "condition": "=", "value": 1}]}; DROP TABLE Widgets',
  ]) {
    const answer = await server.call("POST", "/widgets/select", text);
    assert.equal(answer.status, 400, `${text}: ${answer.text}`);
  }
  // A prototype key that did not pass as a property would show the soft-deleted row: it must not.
  const after = await server.call("POST", "/widgets/select", { where: [{ columnName: "id", condition: "=", value: 25 }] });
  assert.equal((after.json as Page).count, 0);
});

test("a legitimate value with a quote in it still matches exactly its row", async () => {
  const outcome = await selectStatus({ where: [{ columnName: "name", condition: "=", value: "O'Brien's Gear" }] });
  assert.deepEqual(
    outcome.page?.data.map((row) => row.id),
    [3],
  );
});

test("after the whole corpus every table, the schema and the file bytes are unchanged", async () => {
  assert.equal(server.dump(), dumpBefore);
  assert.equal(server.fileHash(), hashBefore);
  assert.equal(server.rows("SELECT COUNT(*) AS n FROM Widgets")[0].n, 25);
  const get = await server.call("GET", "/widgets/1");
  assert.equal((get.json as { name: string }).name, "Acme Anvil");
});
