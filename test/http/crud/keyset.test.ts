// Keyset pages of POST {base}/select over HTTP: `after` with the `nextCursor` of the page before, the key as
// the last order column, NULL lowest, count left out unless asked, and every forged cursor a 400.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Answer } from "../http-test-client.js";
import { seedWidgets, startCrudServer, type CrudServer } from "./crud-fixtures.js";

type Row = Record<string, unknown>;
type Page = { count?: number; data: Row[]; nextCursor?: string };

let server: CrudServer;

before(async () => {
  server = await startCrudServer(seedWidgets);
});
after(async () => {
  await server.close();
});

async function select(body: unknown, status = 200): Promise<Page & { answer: Answer }> {
  const answer = await server.call("POST", "/widgets/select", body);
  assert.equal(answer.status, status, answer.text);
  return { ...(answer.json as Page), answer };
}

/** Every page of a body, following nextCursor: the ids in the order read, and the pages. */
async function walk(body: Row): Promise<{ ids: number[]; pages: Page[] }> {
  const ids: number[] = [];
  const pages: Page[] = [];
  let cursor: string | undefined;
  for (let n = 0; n < 50; n++) {
    const page = await select(cursor === undefined ? body : { ...body, after: cursor });
    pages.push(page);
    ids.push(...page.data.map((row) => row.id as number));
    cursor = page.nextCursor;
    if (cursor === undefined) break;
  }
  return { ids, pages };
}

const cursorOf = (values: unknown[]): string => Buffer.from(JSON.stringify(values)).toString("base64url");

describe("keyset pages of select", () => {
  test("a walk by nextCursor reads every row once, in the order of the offset pages; count on the first page only", async () => {
    const body = { orderBy: [{ columnName: "name", direction: "ASC" }], limit: 5 };
    const everything = await select({ orderBy: body.orderBy });
    assert.equal(everything.nextCursor, undefined, "a page with every row has no cursor");
    const { ids, pages } = await walk(body);
    assert.deepEqual(
      ids,
      everything.data.map((row) => row.id),
    );
    assert.equal(pages.length, 5);
    assert.equal(pages[0].count, 24);
    for (const page of pages.slice(1)) assert.equal("count" in page, false, "a keyset page leaves count out");
    assert.equal(pages[4].data.length, 4);
    assert.equal(pages[4].nextCursor, undefined, "the last page has no cursor");
  });

  test("the key breaks ties: ordered by a column of two values, pages of 4 still read all 24 rows once", async () => {
    const { ids } = await walk({ orderBy: [{ columnName: "active", direction: "DESC" }], limit: 4 });
    const odd = [1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23];
    const even = [2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24];
    assert.deepEqual(ids, [...odd, ...even]);
  });

  test("a row count that is a multiple of the page size ends without an empty page", async () => {
    const { pages } = await walk({ orderBy: [{ columnName: "id" }], limit: 6 });
    assert.deepEqual(
      pages.map((page) => page.data.length),
      [6, 6, 6, 6],
    );
  });

  test("NULL orders lowest: first ascending, last descending, and walks cross it both ways", async () => {
    for (const direction of ["ASC", "DESC"]) {
      const body = {
        orderBy: [
          { columnName: "price", direction },
          { columnName: "code", direction },
        ],
        limit: 3,
      };
      const everything = (await select({ orderBy: body.orderBy })).data;
      const prices = everything.map((row) => row.price);
      const nulls = prices.filter((price) => price === null).length;
      assert.equal(nulls, 4);
      if (direction === "ASC") assert.deepEqual(prices.slice(0, 4), [null, null, null, null]);
      else assert.deepEqual(prices.slice(-4), [null, null, null, null]);
      const { ids } = await walk(body);
      assert.deepEqual(
        ids,
        everything.map((row) => row.id),
        direction,
      );
    }
  });

  test("count: true on a keyset page counts every row the filter matches; count: false leaves it out of the first page", async () => {
    const where = [{ columnName: "quantity", condition: ">=", value: 100 }];
    const first = await select({ where, limit: 5 });
    assert.equal(first.count, 15);
    const second = await select({ where, limit: 5, after: first.nextCursor, count: true });
    assert.equal(second.count, 15);
    assert.deepEqual(
      second.data.map((row) => row.id),
      [15, 16, 17, 18, 19],
    );
    const uncounted = await select({ where, limit: 5, count: false });
    assert.equal("count" in uncounted, false);
    assert.equal(typeof uncounted.nextCursor, "string");
  });

  test("a page read with start answers no cursor, as before", async () => {
    const page = await select({ start: 5, limit: 5 });
    assert.equal(page.count, 24);
    assert.equal(page.nextCursor, undefined);
  });

  test("rows inserted before the cursor's row do not shift the next page; rows after it appear in it", async () => {
    const body = { orderBy: [{ columnName: "name" }], limit: 10 };
    const first = await select(body);
    const lastName = first.data[9].name as string;
    for (const name of ["AAA inserted first", "zzz inserted last"]) {
      const answer = await server.call("POST", "/widgets", { name, quantity: 1 });
      assert.equal(answer.status, 200, answer.text);
    }
    const second = await select({ ...body, after: first.nextCursor });
    assert.ok((second.data[0].name as string) > lastName, `${second.data[0].name} after ${lastName}`);
    const rest = await walk({ ...body, after: first.nextCursor });
    const names = rest.pages.flatMap((page) => page.data.map((row) => row.name));
    assert.ok(names.includes("zzz inserted last"));
    assert.ok(!names.includes("AAA inserted first"));
    assert.equal(new Set(names).size, names.length, "no row twice");
  });
});

describe("a bad cursor answers 400 and reads nothing it should not", () => {
  test("a cursor that is not one a select answered", async () => {
    const dump = server.dump();
    for (const after of [
      123,
      true,
      {},
      ["x"],
      "",
      "not a cursor!",
      "%27%20OR%201%3D1",
      Buffer.from("not json").toString("base64url"),
      cursorOf({ a: 1 } as unknown as unknown[]),
      Buffer.from(JSON.stringify([1, 2])).toString("base64url"),
      "A".repeat(5000),
    ]) {
      const answer = await select({ after }, 400);
      assert.match(
        (answer.answer.json as Row).message as string,
        /after must be a cursor that a select answered as nextCursor/,
        JSON.stringify(after),
      );
    }
    assert.equal(server.dump(), dump);
  });

  test("a cursor made for other order columns", async () => {
    const page = await select({ orderBy: [{ columnName: "name" }], limit: 2 });
    for (const orderBy of [
      [],
      [{ columnName: "name", direction: "DESC" }],
      [{ columnName: "quantity" }],
      [{ columnName: "name" }, { columnName: "code" }],
    ]) {
      const answer = await select({ orderBy, after: page.nextCursor }, 400);
      assert.match((answer.answer.json as Row).message as string, /was made for another orderBy/);
    }
    const forged = await select({ after: cursorOf(["id+", 1, 2]) }, 400);
    assert.match((forged.answer.json as Row).message as string, /was made for another orderBy/, "a value count that is not the order's");
  });

  test("a cursor whose values are not of their columns' types", async () => {
    for (const [orderBy, values, column] of [
      [[], ["id+", "abc"], "id"],
      [[], ["id+", 1.5], "id"],
      [[], ["id+", 99999999999], "id"],
      [[], ["id+", null], "id"],
      [[], ["id+", [1]], "id"],
      [[{ columnName: "quantity" }], ["quantity+,id+", "ten", 1], "quantity"],
      [[{ columnName: "madeAt" }], ["madeAt+,id+", "yesterday", 1], "madeAt"],
      [[{ columnName: "active" }], ["active+,id+", "yes", 1], "active"],
      [[{ columnName: "price" }], ["price+,id+", { n: 1 }, 1], "price"],
      [[{ columnName: "name" }], ["name+,id+", null, 1], "name"],
    ] as const) {
      const answer = await select({ orderBy, after: cursorOf([...values]) }, 400);
      assert.match((answer.answer.json as Row).message as string, new RegExp(`carries a value for ${column} that is not of its type`));
    }
  });

  test("SQL in a forged cursor's text value is a value, bound as a parameter, never SQL", async () => {
    const dump = server.dump();
    const page = await select({
      orderBy: [{ columnName: "name" }],
      after: cursorOf(["name+,id+", "x' OR 1=1; DROP TABLE Widgets; --", 1]),
    });
    assert.ok(page.data.every((row) => (row.name as string) > "x' OR"));
    assert.equal(server.dump(), dump);
  });

  test("after with start, and a count that is not true or false", async () => {
    const page = await select({ limit: 2 });
    const both = await select({ start: 2, after: page.nextCursor }, 400);
    assert.match((both.answer.json as Row).message as string, /after and start exclude each other/);
    const count = await select({ count: "yes" }, 400);
    assert.match((count.answer.json as Row).message as string, /count must be true, false/);
  });
});
