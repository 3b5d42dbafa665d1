// HttpEntityReader and the read routes of HttpEntityController over HTTP: get, find, selectAll, select,
// metadata, paging ceilings, every rule of the filter body (docs/crud.md), reader events.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { EntityClass, GetOptions, JsonObject, JsonSerializerConfig } from "tenon";
import { HttpContext } from "tenon/http";
import type { Answer } from "../http-test-client.js";
import { hooks, seedWidgets, seededName, startCrudServer, type CrudServer } from "./crud-fixtures.js";

let server: CrudServer;
const live = Array.from({ length: 24 }, (_, i) => i + 1);

before(async () => {
  server = await startCrudServer(seedWidgets);
});
after(async () => {
  await server.close();
});

type Page = { count: number; data: Record<string, unknown>[] };

function page(answer: Answer): Page {
  assert.equal(answer.status, 200, answer.text);
  return answer.json as Page;
}

function sortedIds(answer: Answer): number[] {
  return page(answer)
    .data.map((row) => row.id as number)
    .sort((a, b) => a - b);
}

async function select(body: unknown, base = "/widgets"): Promise<Answer> {
  return server.call("POST", `${base}/select`, body);
}

async function selectIds(where: unknown[], base = "/widgets"): Promise<number[]> {
  return sortedIds(await select({ where }, base));
}

function where(columnName: string, condition: string, value?: unknown): Record<string, unknown> {
  return value === undefined ? { columnName, condition } : { columnName, condition, value };
}

function assert400(answer: Answer, message?: string): void {
  assert.equal(answer.status, 400, answer.text);
  const body = answer.json as { status: number; message: string };
  assert.equal(body.status, 400);
  assert.equal(typeof body.message, "string");
  if (message !== undefined) assert.equal(body.message, message);
}

const notFilterable = (name: string): string =>
  `Column ${name} cannot be used in a filter: it is not a column of this entity, or it is marked as not filterable.`;

describe("get, find, selectAll and metadata", () => {
  test("GET {base} answers every live row as {count, data} with relations and without details", async () => {
    const answer = page(await server.call("GET", "/widgets"));
    assert.equal(answer.count, 24);
    assert.deepEqual(
      answer.data.map((row) => row.id as number).sort((a, b) => a - b),
      live,
    );
    const first = answer.data.find((row) => row.id === 1) as Record<string, unknown>;
    assert.equal(first.categoryId, 2);
    assert.deepEqual(first.category, { id: 2, title: "Toys", versionId: 0 });
    assert.equal("parts" in first, false);
    assert.equal(first.secret, "secret 1", "a not-filterable column is still serialized");
    assert.equal("internal" in first, false, "a JSON-ignored column is never written");
    assert.equal("password" in first, false, "a never-serialized column is never written");
    assert.equal(first.price, "1.50");
    assert.equal(first.madeAt, "2024-01-01T00:00:00.000Z");
    assert.equal(first.active, true);
  });

  test("GET {base}/{id} answers the entity with its details", async () => {
    const answer = await server.call("GET", "/widgets/1");
    assert.equal(answer.status, 200, answer.text);
    const widget = answer.json as Record<string, unknown>;
    assert.equal(widget.name, "Acme Anvil");
    assert.deepEqual((widget.parts as { label: string }[]).map((p) => p.label).sort(), ["Handle", "Head", "Spring"]);
    assert.equal(widget.categoryId, 2);
  });

  test("GET {base}/find/{id} answers the entity only: scalars and <name>Id, no relation object, no details", async () => {
    const answer = await server.call("GET", "/widgets/find/1");
    assert.equal(answer.status, 200, answer.text);
    const widget = answer.json as Record<string, unknown>;
    assert.equal(widget.id, 1);
    assert.equal(widget.categoryId, 2);
    assert.equal("category" in widget, false);
    assert.equal("parts" in widget, false);
  });

  test("an absent id answers 404 Entity <id> not found. on get and find", async () => {
    for (const path of ["/widgets/999", "/widgets/find/999", "/parts/77"]) {
      const answer = await server.call("GET", path);
      assert.equal(answer.status, 404, path);
      const id = path.split("/").pop();
      assert.deepEqual(answer.json, { status: 404, message: `Entity ${id} not found.` });
    }
  });

  test("a soft-deleted row is absent for the reader unless the server includes deleted rows", async () => {
    assert.equal((await server.call("GET", "/widgets/25")).status, 404);
    assert.equal((await server.call("GET", "/widgets/find/25")).status, 404);
    const included = await server.call("GET", "/all-widgets/25");
    assert.equal(included.status, 200, included.text);
    assert.equal((included.json as { deletedBy: string }).deletedBy, "seed");
    assert.equal(page(await server.call("GET", "/all-widgets")).count, 25);
    assert.equal(page(await select({}, "/all-widgets")).count, 25);
  });

  test("a reader whose get or find is replaced answers through the replacement, with its ETag and 304", async () => {
    const calls: string[] = [];
    hooks.reader = (reader) => {
      const get = reader.get.bind(reader);
      const find = reader.find.bind(reader);
      reader.get = async (id, config, exchange) => {
        calls.push(`get ${id}`);
        return { wrapped: await get(id, config, exchange) };
      };
      reader.find = (id, config, exchange) => {
        calls.push(`find ${id}`);
        return find(id, config, exchange);
      };
    };
    try {
      const got = await server.call("GET", "/widgets/1");
      assert.equal(got.status, 200, got.text);
      assert.equal((got.json as { wrapped: { name: string } }).wrapped.name, "Acme Anvil");
      const found = await server.call("GET", "/widgets/find/1");
      assert.equal(found.status, 200, found.text);
      const tag = found.headers.etag as string;
      assert.match(tag, /^"1-\d+"$/);
      const again = await server.call("GET", "/widgets/find/1", undefined, { "If-None-Match": tag });
      assert.equal(again.status, 304);
      assert.deepEqual(calls, ["get 1", "find 1", "find 1"]);
    } finally {
      hooks.reader = undefined;
    }
  });

  test("get and find answer 304 to a matching If-None-Match and 200 with the same tag otherwise", async () => {
    for (const path of ["/widgets/2", "/widgets/find/2"]) {
      const first = await server.call("GET", path);
      assert.equal(first.status, 200, first.text);
      const tag = first.headers.etag as string;
      assert.equal((await server.call("GET", path, undefined, { "If-None-Match": tag })).status, 304, path);
      const other = await server.call("GET", path, undefined, { "If-None-Match": '"2-999"' });
      assert.equal(other.status, 200, path);
      assert.equal(other.headers.etag, tag);
      assert.deepEqual(other.json, first.json);
    }
  });

  test("a placeholder that is not a 32-bit integer answers 400", async () => {
    for (const path of ["/widgets/abc", "/widgets/2147483648", "/widgets/1.5", "/widgets/find/x", "/widgets/1e3", "/widgets/-2147483649"]) {
      const answer = await server.call("GET", path);
      assert.equal(answer.status, 400, `${path}: ${answer.text}`);
    }
    assert.equal((await server.call("DELETE", "/parts/1/abc")).status, 400);
    assert.equal((await server.call("DELETE", "/parts/x/0")).status, 400);
    assert.equal(server.rows("SELECT COUNT(*) AS n FROM Parts")[0].n, 3);
  });

  test("metadata names the entity, key and version, and publishes no table or column names of the database", async () => {
    const answer = await server.call("GET", "/widgets/metadata");
    assert.equal(answer.status, 200, answer.text);
    const metadata = answer.json as { entity: string; primaryKey: string; versionColumn: string; properties: Record<string, unknown>[] };
    assert.equal(metadata.entity, "Widget");
    assert.equal(metadata.primaryKey, "id");
    assert.equal(metadata.versionColumn, "versionId");
    const byName = new Map(metadata.properties.map((p) => [p.name as string, p]));
    assert.equal(byName.has("internal"), false, "a column neither serialized nor deserialized is left out");
    assert.equal(byName.get("secret")?.filterable, false);
    assert.equal(byName.get("password")?.readable, false);
    assert.equal(byName.get("createdAt")?.writable, false);
    assert.equal("filterable" in (byName.get("name") as object), false, "the flags appear only when false");
    assert.equal(byName.get("name")?.size, 50);
    assert.doesNotMatch(answer.text, /Widgets|ArticleCode|"Secret"|"Internal"/);
  });
});

describe("count and paging", () => {
  test("count is every matching row while data is the page, capped at maxLimit, for selectAll and select", async () => {
    const all = page(await server.call("GET", "/small-widgets"));
    assert.equal(all.count, 24);
    assert.equal(all.data.length, 3);
    for (const limit of [undefined, 0, -5, 100, 4]) {
      const body = limit === undefined ? {} : { limit };
      const answer = page(await select(body, "/small-widgets"));
      assert.equal(answer.count, 24, `limit ${limit}`);
      assert.equal(answer.data.length, 3, `limit ${limit} becomes the ceiling 3`);
    }
    assert.equal(page(await select({ limit: 2 }, "/small-widgets")).data.length, 2);
    assert.equal(page(await select({ limit: 2 })).data.length, 2);
  });

  test("start skips rows of the ordered result and count stays the total", async () => {
    const answer = page(await select({ orderBy: [{ columnName: "id", direction: "ASC" }], start: 5, limit: 3 }));
    assert.equal(answer.count, 24);
    assert.deepEqual(
      answer.data.map((row) => row.id),
      [6, 7, 8],
    );
    const beyond = page(await select({ start: 100 }));
    assert.equal(beyond.count, 24);
    assert.deepEqual(beyond.data, []);
    assert400(await select({ start: -1 }));
    assert400(await select({ start: "5" }));
    assert400(await select({ limit: 1.5 }));
    assert400(await select({ limit: "10" }));
  });

  test("maxLimit 0 means the default 1000, a negative one unlimited, and no limit in a body passes the ceiling", async () => {
    server.exec(`WITH RECURSIVE n(i) AS (SELECT 1001 UNION ALL SELECT i + 1 FROM n WHERE i < 2010)
      INSERT INTO Widgets (ID, Name, Quantity, Active, CreatedBy, UpdatedBy, DeletedBy, VersionID)
      SELECT i, 'Bulk ' || i, 1, 1, 'seed', '', '', 0 FROM n`);
    try {
      const zero = page(await server.call("GET", "/zero-widgets"));
      assert.equal(zero.count, 1034);
      assert.equal(zero.data.length, 1000);
      assert.equal(page(await select({ limit: 5000 }, "/zero-widgets")).data.length, 1000);
      assert.equal(page(await select({ limit: 5000 })).data.length, 1000);
      const unlimited = page(await server.call("GET", "/unlimited-widgets"));
      assert.equal(unlimited.count, 1034);
      assert.equal(unlimited.data.length, 1034);
      assert.equal(page(await select({ limit: 0 }, "/unlimited-widgets")).data.length, 1034);
      assert.equal(page(await select({ limit: 10 }, "/unlimited-widgets")).data.length, 10);
    } finally {
      server.exec("DELETE FROM Widgets WHERE ID > 1000");
    }
  });

  test("more leaf conditions than maxWhereConditions answer 400, counting the leaves inside or groups", async () => {
    const a = where("quantity", ">", 0);
    assert.equal(page(await select({ where: [{ or: [a, a] }] }, "/small-widgets")).count, 24);
    assert400(await select({ where: [{ or: [a, a] }, a] }, "/small-widgets"), "The filter has more than 2 conditions.");
    assert400(await select({ where: [a, a, a] }, "/small-widgets"));
    const many = (n: number): unknown[] => Array.from({ length: n }, () => a);
    assert.equal(page(await select({ where: many(32) })).count, 24);
    assert400(await select({ where: many(33) }));
    assert.equal(page(await select({ where: many(32) }, "/zero-widgets")).count, 24);
    assert400(await select({ where: many(33) }, "/zero-widgets"));
    assert.equal(page(await select({ where: many(60) }, "/unlimited-widgets")).count, 24);
  });

  test("more orderBy columns than maxOrderByColumns answer 400", async () => {
    const by = (n: number): unknown[] => Array.from({ length: n }, () => ({ columnName: "id", direction: "ASC" }));
    assert.equal(page(await select({ orderBy: by(1) }, "/small-widgets")).data.length, 3);
    assert400(await select({ orderBy: by(2) }, "/small-widgets"), "The filter orders by more than 1 columns.");
    assert.equal(page(await select({ orderBy: by(8) })).count, 24);
    assert400(await select({ orderBy: by(9) }));
    assert400(await select({ orderBy: by(9) }, "/zero-widgets"));
    assert.equal(page(await select({ orderBy: by(12) }, "/unlimited-widgets")).count, 24);
  });
});

describe("the filter body", () => {
  test("every comparison operator selects exactly the matching rows", async () => {
    assert.deepEqual(await selectIds([where("name", "=", "Acme Anvil")]), [1]);
    assert.deepEqual(await selectIds([where("quantity", "<>", 10)]), live.slice(1));
    assert.deepEqual(await selectIds([where("quantity", "<", 30)]), [1, 2]);
    assert.deepEqual(await selectIds([where("quantity", "<=", 30)]), [1, 2, 3]);
    assert.deepEqual(await selectIds([where("quantity", ">", 220)]), [23, 24]);
    assert.deepEqual(await selectIds([where("quantity", ">=", 220)]), [22, 23, 24]);
  });

  test("LIKE and NOT LIKE match text patterns", async () => {
    assert.deepEqual(await selectIds([where("name", "LIKE", "Widget 1%")]), [10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    assert.deepEqual(await selectIds([where("name", "NOT LIKE", "Widget%")]), [1, 2, 3, 4, 5]);
    assert.deepEqual(await selectIds([where("name", "LIKE", "O'Brien%")]), [3]);
  });

  test("IN takes an array of 1 to 100 values", async () => {
    assert.deepEqual(await selectIds([where("id", "IN", [1, 3, 99])]), [1, 3]);
    assert.deepEqual(await selectIds([where("name", "IN", ["Acme Anvil", "under_score", "nobody"])]), [1, 5]);
    assert.deepEqual(
      await selectIds([
        where(
          "id",
          "IN",
          Array.from({ length: 100 }, (_, i) => i + 1),
        ),
      ]),
      live,
    );
    assert400(
      await select({
        where: [
          where(
            "id",
            "IN",
            Array.from({ length: 101 }, (_, i) => i),
          ),
        ],
      }),
    );
    assert400(await select({ where: [where("id", "IN", [])] }));
    assert400(await select({ where: [where("id", "IN", 1)] }));
    assert400(await select({ where: [where("id", "IN", [1, { id: 2 }])] }));
    assert400(await select({ where: [where("id", "IN", [1, "two"])] }));
  });

  test("IS NULL and IS NOT NULL take no value", async () => {
    const evens = live.filter((i) => i % 2 === 0);
    const odds = live.filter((i) => i % 2 === 1);
    assert.deepEqual(await selectIds([where("code", "IS NULL")]), evens);
    assert.deepEqual(await selectIds([where("code", "IS NOT NULL")]), odds);
    assert.deepEqual(await selectIds([where("code", "IS NULL", null)]), evens);
    assert400(await select({ where: [where("code", "IS NULL", "C1")] }));
    assert400(await select({ where: [where("code", "IS NOT NULL", 0)] }));
  });

  test("values are converted to the column's type: decimal, float, boolean, date and reference columns", async () => {
    assert.deepEqual(await selectIds([where("price", ">", "30.00")]), [21, 22, 23, 24]);
    assert.deepEqual(await selectIds([where("price", ">", 30)]), [21, 22, 23, 24]);
    assert.deepEqual(await selectIds([where("weight", ">=", 5.5)]), [22, 23, 24]);
    assert.deepEqual(
      await selectIds([where("active", "=", true)]),
      live.filter((i) => i % 2 === 1),
    );
    assert.deepEqual(await selectIds([where("madeAt", "<", "2024-01-03T00:00:00Z")]), [1, 2]);
    assert.deepEqual(
      await selectIds([where("categoryId", "=", 1)]),
      live.filter((i) => i % 3 !== 0 && i % 2 === 0),
    );
    assert.deepEqual(
      await selectIds([where("categoryId", "IS NULL")]),
      live.filter((i) => i % 3 === 0),
    );
  });

  test("conditions, directions and column names compare without case; a column is named by its JSON or database name", async () => {
    assert.deepEqual(await selectIds([where("NAME", "like", "acme anvil")]), [1]);
    assert.deepEqual(await selectIds([where("Name", "not like", "Widget%")]), [1, 2, 3, 4, 5]);
    assert.deepEqual(await selectIds([where("code", "is not null"), where("QUANTITY", "<", 40)]), [1, 3]);
    assert.deepEqual(await selectIds([where("ArticleCode", "=", "C7")]), [7]);
    assert.deepEqual(await selectIds([where("articlecode", "In", ["C7", "C9"])]), [7, 9]);
    assert.deepEqual(await selectIds([where("CATEGORYID", "=", 2), where("id", "<", 4)]), [1]);
    const desc = page(await select({ orderBy: [{ columnName: "QuAnTiTy", direction: "desc" }], limit: 2 }));
    assert.deepEqual(
      desc.data.map((row) => row.id),
      [24, 23],
    );
    const asc = page(
      await select({
        orderBy: [
          { columnName: "articleCODE", direction: "" },
          { columnName: "id", direction: "asc" },
        ],
        limit: 3,
      }),
    );
    assert.deepEqual(
      asc.data.map((row) => row.id),
      [2, 4, 6],
      "NULL codes sort first ascending on SQLite, then by id",
    );
    assert.equal(page(await select({ orderBy: [{ columnName: "id" }] })).count, 24);
    assert.equal(page(await select({ WHERE: [where("id", "=", 1)], ORDERBY: [], Start: 0, LIMIT: 5 })).count, 1);
    assert400(await select({ orderBy: [{ columnName: "id", direction: "sideways" }] }), 'Unknown direction "sideways"; use ASC or DESC.');
  });

  test("where items are ANDed, or groups are ORed and nest up to depth 4", async () => {
    const group = { or: [where("name", "=", "Acme Anvil"), where("quantity", "=", 30)] };
    assert.deepEqual(await selectIds([group]), [1, 3]);
    assert.deepEqual(
      await selectIds([where("quantity", ">", 100), { or: [where("code", "IS NULL"), where("name", "=", "Widget 11")] }]),
      [11, 12, 14, 16, 18, 20, 22, 24],
    );
    const nest = (depth: number): unknown => {
      let item: unknown = { or: [where("id", "=", 1), where("id", "=", 2)] };
      for (let d = 1; d < depth; d++) item = { or: [item, where("id", "=", 10 + d)] };
      return item;
    };
    assert.deepEqual(await selectIds([nest(4)]), [1, 2, 11, 12, 13]);
    assert400(await select({ where: [nest(5)] }), "The where conditions nest or groups more than 4 deep.");
    assert400(await select({ where: [{ or: [] }] }));
    assert400(await select({ where: [{ or: where("id", "=", 1) }] }));
    assert400(await select({ where: [{ or: [where("id", "=", 1)], columnName: "id" }] }));
  });

  test("a value that does not convert to the column's type answers 400", async () => {
    for (const [column, value] of [
      ["quantity", "abc"],
      ["quantity", "10"],
      ["quantity", 1.5],
      ["quantity", 3000000000],
      ["quantity", true],
      ["price", "12,50"],
      ["price", "abc"],
      ["weight", "heavy"],
      ["active", "yes"],
      ["active", 1],
      ["madeAt", "not a date"],
      ["madeAt", 20240101],
      ["categoryId", "Tools"],
      ["name", 5],
      ["name", false],
      ["id", "1"],
    ] as const) {
      assert400(await select({ where: [where(column, "=", value)] }));
    }
  });

  test("a number too large for a double (1e400 reads as Infinity) answers 400 on every numeric column", async () => {
    for (const column of ["weight", "price", "quantity", "id"]) {
      const text = `{"where": [{"columnName": "${column}", "condition": ">", "value": 1e400}]}`;
      assert400(await server.call("POST", "/widgets/select", text, { "Content-Type": "application/json" }));
    }
  });

  test("an object or array value answers 400", async () => {
    for (const value of [{ x: 1 }, [1], { toString: "1" }, []]) {
      assert400(await select({ where: [where("name", "=", value)] }));
      assert400(await select({ where: [where("quantity", ">", value)] }));
    }
    assert400(await select({ where: [where("name", "LIKE", { pattern: "%" })] }));
  });

  test("a LIKE pattern of up to 1,000 characters is matched and a longer one answers 400 (SQLite answered 500 at 50 KB)", async () => {
    assert.deepEqual(await selectIds([where("name", "LIKE", `Widget 1${"%".repeat(992)}`)]), [10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    assert400(
      await select({ where: [where("name", "LIKE", `${"%".repeat(1001)}`)] }),
      "The LIKE pattern for name is longer than 1000 characters.",
    );
    assert400(
      await select({ where: [where("name", "NOT LIKE", "x".repeat(50_000))] }),
      "The LIKE pattern for name is longer than 1000 characters.",
    );
  });

  test("an orderBy direction that is a deeply nested array or an object with its own toString answers 400 (both were 500)", async () => {
    const deep = `${"[".repeat(5000)}1${"]".repeat(5000)}`;
    for (const direction of [deep, '{"toString":1}', '{"a":1}', "[]", "true", "7"]) {
      const answer = await server.call("POST", "/widgets/select", `{"orderBy":[{"columnName":"name","direction":${direction}}]}`);
      assert400(answer, "An orderBy direction must be the text ASC or DESC (or empty).");
    }
  });

  test("a NUL character or a lone surrogate in a filter value answers 400 naming the property", async () => {
    for (const condition of ["=", "LIKE", "<>"]) {
      for (const value of ["a\u0000", "Widget\ud800"]) {
        const answer = await select({ where: [where("name", condition, value)] });
        assert400(answer);
        assert.match((answer.json as { message: string }).message, /^Property name: the text contains (a NUL|a lone UTF-16 surrogate)/);
      }
    }
  });

  test("LIKE and NOT LIKE on a column that is not text answer 400", async () => {
    for (const column of ["quantity", "price", "weight", "active", "madeAt", "categoryId", "id"]) {
      assert400(await select({ where: [where(column, "LIKE", "1%")] }));
      assert400(await select({ where: [where(column, "NOT LIKE", "1%")] }));
    }
  });

  test("an unknown, a not-filterable, a JSON-ignored, a never-serialized column and a detail list get the one identical 400", async () => {
    for (const name of ["nope", "secret", "Secret", "internal", "password", "Password", "parts", "category", "WidgetID", ""]) {
      assert400(await select({ where: [where(name, "=", "x")] }), notFilterable(name));
      assert400(await select({ where: [where(name, "IS NULL")] }), notFilterable(name));
      assert400(await select({ orderBy: [{ columnName: name, direction: "ASC" }] }), notFilterable(name));
    }
  });

  test("an unknown operator, a missing condition or value, and unknown properties answer 400", async () => {
    assert400(
      await select({ where: [where("id", "==", 1)] }),
      'Unknown condition "=="; use =, <>, <, <=, >, >=, LIKE, NOT LIKE, IN, IS NULL or IS NOT NULL.',
    );
    assert400(await select({ where: [where("id", "BETWEEN", 1)] }));
    assert400(await select({ where: [where("id", "!=", 1)] }));
    assert400(await select({ where: [{ columnName: "id", value: 1 }] }));
    assert400(await select({ where: [{ columnName: "id", condition: "=" }] }));
    assert400(await select({ where: [{ condition: "=", value: 1 }] }));
    assert400(await select({ where: [{ columnName: 5, condition: "=", value: 1 }] }));
    assert400(await select({ where: [{ columnName: "id", condition: "=", value: 1, extra: true }] }));
    assert400(await select({ where: [5] }));
    assert400(await select({ where: "id = 1" }));
    assert400(await select({ orderBy: "id" }));
    assert400(await select({ orderBy: [{ columnName: "id", direction: "ASC", nulls: "first" }] }));
    assert400(await select({ select: ["id"] }));
  });

  test("includeDeleted is decided by the server only: a body that asks for it answers 400", async () => {
    assert400(await select({ includeDeleted: true }));
    assert400(await select({ where: [], includeDeleted: true }, "/widgets"));
    assert.equal(page(await select({ where: [where("id", "=", 25)] })).count, 0);
    assert.equal(page(await select({ where: [where("id", "=", 25)] }, "/all-widgets")).count, 1);
  });

  test("an empty body reads as {}; a body that is not a JSON object answers 400", async () => {
    assert.equal(page(await server.call("POST", "/widgets/select")).count, 24);
    assert.equal(page(await server.call("POST", "/widgets/select", "", { "Content-Type": "application/json" })).count, 24);
    assert.equal(page(await server.call("POST", "/widgets/select", "  \n ")).count, 24);
    assert.equal(page(await select({ where: null, orderBy: null, start: null, limit: null })).count, 24);
    for (const body of ["[]", "null", "5", '"where"', "true", "{", "{'where': []}", '{"where": [}']) {
      assert400(await server.call("POST", "/widgets/select", body, { "Content-Type": "application/json" }));
    }
  });
});

describe("reader events", () => {
  test("onAddEntityFilter runs before the count and the select, and keeps the body's OR inside parentheses", async () => {
    const calls: string[] = [];
    hooks.reader = (reader) => {
      reader.onAddEntityFilter = (filter) => {
        calls.push("filter");
        filter.addWhere("Quantity <= :maxQuantity", { maxQuantity: 50 });
      };
    };
    try {
      const all = page(await server.call("GET", "/widgets"));
      assert.equal(all.count, 5);
      assert.deepEqual(
        all.data.map((r) => r.id as number).sort((a, b) => a - b),
        [1, 2, 3, 4, 5],
      );
      const selected = await selectIds([{ or: [where("name", "=", "Acme Anvil"), where("quantity", "=", 240)] }]);
      assert.deepEqual(selected, [1], "an OR of the body must not escape the application's AND");
      assert.deepEqual(calls, ["filter", "filter"]);
    } finally {
      delete hooks.reader;
    }
  });

  test("onBeforeSerializeEntity runs on each entity of the page before it is serialized, on get and find too", async () => {
    const seen: number[] = [];
    hooks.reader = (reader) => {
      reader.onBeforeSerializeEntity = (widget) => {
        seen.push(widget.id);
        widget.name = widget.name.toUpperCase();
      };
    };
    try {
      const answer = page(await select({ orderBy: [{ columnName: "id" }], limit: 4 }));
      assert.equal(answer.count, 24);
      assert.deepEqual(
        answer.data.map((r) => r.name),
        [1, 2, 3, 4].map((i) => seededName(i).toUpperCase()),
      );
      assert.deepEqual(seen, [1, 2, 3, 4], "only the page is visited");
      assert.equal(((await server.call("GET", "/widgets/2")).json as { name: string }).name, "ACME ROCKET");
      assert.equal(((await server.call("GET", "/widgets/find/3")).json as { name: string }).name, "O'BRIEN'S GEAR");
    } finally {
      delete hooks.reader;
    }
    assert.equal(server.rows("SELECT Name FROM Widgets WHERE ID = 2")[0].Name, "acme rocket", "the database is not touched");
  });

  test("get reads and writes through a context that overrides tryGet and toJson", async () => {
    const read: number[] = [];
    hooks.reader = (_reader, context) => {
      const tryGet = context.tryGet.bind(context);
      const toJson = context.toJson.bind(context) as (entity: object, config?: JsonSerializerConfig) => Promise<Record<string, unknown>>;
      Object.assign(context, {
        tryGet: (entityClass: EntityClass<object>, id: number, options?: GetOptions) => {
          read.push(id);
          return tryGet(entityClass, id, options);
        },
        toJson: async (entity: object, config?: JsonSerializerConfig) => ({ ...(await toJson(entity, config)), decorated: true }),
      });
    };
    try {
      const answer = await server.call("GET", "/widgets/2");
      assert.equal(answer.status, 200);
      assert.deepEqual([(answer.json as { name: string }).name, (answer.json as { decorated: boolean }).decorated], ["acme rocket", true]);
      assert.equal((await server.call("GET", "/widgets/999")).status, 404);
      assert.deepEqual([read[0], read.at(-1)], [2, 999], "the widgets are read through the override (its category too)");
    } finally {
      delete hooks.reader;
    }
  });

  test("get and find read and write through a context class that overrides tryGet and toJson", async () => {
    const read: number[] = [];
    class DecoratingContext extends HttpContext {
      override tryGet<T extends object>(entityClass: EntityClass<T>, id: number, options?: GetOptions): Promise<T | null> {
        read.push(id);
        return super.tryGet(entityClass, id, options);
      }
      override toJson(entities: readonly object[], config?: JsonSerializerConfig): Promise<JsonObject[]>;
      override toJson(entity: object, config?: JsonSerializerConfig): Promise<JsonObject>;
      override async toJson(value: object | readonly object[], config?: JsonSerializerConfig): Promise<JsonObject | JsonObject[]> {
        if (Array.isArray(value)) return super.toJson(value, config);
        return { ...(await super.toJson(value, config)), decorated: true };
      }
    }
    hooks.contextClass = DecoratingContext;
    try {
      const got = await server.call("GET", "/widgets/2");
      assert.equal(got.status, 200);
      assert.deepEqual([(got.json as { name: string }).name, (got.json as { decorated: boolean }).decorated], ["acme rocket", true]);
      const found = await server.call("GET", "/widgets/find/3");
      assert.deepEqual([found.status, (found.json as { decorated: boolean }).decorated], [200, true]);
      assert.equal((await server.call("GET", "/widgets/999")).status, 404);
      assert.deepEqual([read[0], read.includes(3), read.at(-1)], [2, true, 999], "every read by key goes through the override");
    } finally {
      delete hooks.contextClass;
    }
  });

  test("an asynchronous onBeforeSerializeEntity is awaited before get serializes, and its failure answers 500", async () => {
    hooks.reader = (reader) => {
      reader.onBeforeSerializeEntity = async function (this: unknown, widget) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (widget.id === 3) throw new Error("hook failed on 3");
        widget.name = `${widget.name} (seen by ${this === reader ? "the reader" : "someone else"})`;
      };
    };
    try {
      assert.equal(((await server.call("GET", "/widgets/2")).json as { name: string }).name, "acme rocket (seen by the reader)");
      const failed = await server.call("GET", "/widgets/3");
      assert.equal(failed.status, 500);
      assert.ok(!failed.text.includes("hook failed"), "the cause stays on the server");
    } finally {
      delete hooks.reader;
    }
  });
});
