// The consistency token on a database without read replicas (SQLite here): a write answers none, since every read
// is served by the server that took the write, and a token sent back changes nothing and is never refused. The
// OpenAPI description names the header where writes answer it and where reads take it. (With replicas:
// test/demo/demo-read-your-writes.ts and test/engines/postgres/replica-reads-suite.ts, on a Patroni cluster.)
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { seedWidgets, startCrudServer, WidgetController, type CrudServer } from "./crud-fixtures.js";

let widgets: CrudServer;

before(async () => {
  widgets = await startCrudServer(seedWidgets);
});
after(async () => {
  await widgets.close();
});

describe("X-Consistency-Token without read replicas", () => {
  test("a write answers no token, and a read that sends any token is served as without one", async () => {
    const inserted = await widgets.call("POST", "/widgets", { name: "Tokenless" });
    assert.equal(inserted.status, 200, inserted.text);
    assert.equal(inserted.headers["x-consistency-token"], undefined);
    const id = (inserted.json as { id: number }).id;
    for (const token of ["0/3000060", "not a token", ""]) {
      const read = await widgets.call("GET", `/widgets/${id}`, undefined, { "X-Consistency-Token": token });
      assert.equal(read.status, 200, `${JSON.stringify(token)}: ${read.text}`);
      assert.equal((read.json as { name: string }).name, "Tokenless");
    }
  });

  test("the OpenAPI description has the token on every write's answer and as an optional header of every read", () => {
    const { operations } = WidgetController.openApiDescription(WidgetController);
    for (const write of ["insert", "update", "patch", "delete", "bulk"])
      assert.ok(operations[write].responseHeaders?.["X-Consistency-Token"] !== undefined, write);
    for (const read of ["selectAll", "get", "find", "select"])
      assert.ok(
        operations[read].parameters?.some((parameter) => parameter.name === "X-Consistency-Token" && parameter.in === "header"),
        read,
      );
  });
});
