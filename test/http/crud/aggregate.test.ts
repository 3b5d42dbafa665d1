// POST {base}/aggregate over HTTP on a real SQLite file: groups (columns, a referenced entity's column, date
// periods), metrics, having, order, keyset pages over groups, the maxGroups ceiling, tenants and soft delete,
// @Aggregatable, and a 400 naming the problem for every body part that does not fit. Also the select body's
// count modes. (Answers against hand-written SQL on all three engines: test/orm/aggregate-suite.ts.)
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { openDirectSqlite } from "../../support/direct-sqlite.js";
import {
  Aggregatable,
  Column,
  DeletedAt,
  JsonIgnore,
  Lazy,
  NotFilterable,
  PrimaryKey,
  Sequence,
  Table,
  TenantColumn,
  Type,
  VersionColumn,
} from "tenon";
import { HttpContext, HttpEntityController, type HttpEntityReader, HttpFilterParameters, type HttpRequest, HttpServer } from "tenon/http";
import { SqliteDatabase } from "tenon/sqlite";
import { type Answer, ask } from "../http-test-client.js";

@Table("Shops")
@Sequence("ShopsID")
class Shop {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @TenantColumn @Column("TenantID", Type.varchar(20)) tenantId = "";
  @Column("Name", Type.varchar(40)) name = "";
  @DeletedAt @Column("DeletedAt", Type.date.orNull) deletedAt: Date | null = null;
}

@Table("Items")
@Sequence("ItemsID")
class Item {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @TenantColumn @Column("TenantID", Type.varchar(20)) tenantId = "";
  @Column("Name", Type.varchar(40)) name = "";
  @Column("Kind", Type.varchar(20)) kind = "";
  @Aggregatable({ metrics: ["min", "max"] }) @Column("Label", Type.varchar(20)) label = "";
  @Column("Quantity", Type.int32) quantity = 0;
  @Column("Price", Type.decimal(10, 2).orNull) price: string | null = null;
  @Column("Weight", Type.float.orNull) weight: number | null = null;
  @Column("MadeAt", Type.date.orNull) madeAt: Date | null = null;
  @NotFilterable @Column("Cost", Type.decimal(10, 2).orNull) cost: string | null = null;
  @NotFilterable @Aggregatable({ metrics: ["sum"] }) @Column("Margin", Type.decimal(10, 2).orNull) margin: string | null = null;
  @Aggregatable({ groupBy: false, metrics: [] }) @Column("Code", Type.varchar(20).orNull) code: string | null = null;
  @Column("Huge", Type.decimal(24, 2).orNull) huge: string | null = null;
  @JsonIgnore @Column("Internal", Type.string.orNull) internal: string | null = null;
  @Column(
    "ShopID",
    Type.lazy(() => Shop),
  )
  shop = new Lazy<Shop>();
  @DeletedAt @Column("DeletedAt", Type.date.orNull) deletedAt: Date | null = null;
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

const directory = mkdtempSync(join(tmpdir(), "tenon-aggregate-"));
const file = join(directory, "aggregate.sqlite");
let database: SqliteDatabase;

/** The request's session; `X-Tenant` is the tenant. */
class Context implements AsyncDisposable {
  #orm: HttpContext | undefined;
  #tenant: string | undefined;
  get orm(): HttpContext {
    if (this.#orm === undefined) {
      this.#orm = new HttpContext(database);
      this.#orm.onGetCurrentTenant = () => this.#tenant;
    }
    return this.#orm;
  }
  attachRequest(request: HttpRequest): void {
    this.#tenant = request.header("x-tenant");
  }
  async [Symbol.asyncDispose](): Promise<void> {
    await this.#orm?.dispose();
  }
}

class Items extends HttpEntityController<Context, Item> {
  protected readonly entityClass = Item;
  protected get httpContext(): HttpContext {
    return this.context.orm;
  }
}

/** At most 3 groups and pages of 2. */
class SmallItems extends Items {
  protected override get filterParameters(): HttpFilterParameters {
    return new HttpFilterParameters({ maxGroups: 3, maxLimit: 2, maxWhereConditions: 2, maxOrderByColumns: 1 });
  }
}

/** The application's own condition through `onAddEntityFilter`: only items of a quantity above 6. */
class HookedItems extends Items {
  protected override createReader(): HttpEntityReader<Item> {
    const reader = super.createReader();
    reader.onAddEntityFilter = (filter) => {
      filter.addWhere("Quantity > :least", { least: 6 });
    };
    return reader;
  }
}

let server: HttpServer<Context>;

before(async () => {
  const direct = openDirectSqlite(file);
  direct.exec(`CREATE TABLE Shops (ID INTEGER PRIMARY KEY, TenantID TEXT NOT NULL, Name TEXT NOT NULL, DeletedAt TEXT)`);
  direct.exec(`CREATE TABLE Items (ID INTEGER PRIMARY KEY, TenantID TEXT NOT NULL, Name TEXT NOT NULL, Kind TEXT NOT NULL, Label TEXT NOT NULL,
    Quantity INTEGER NOT NULL, Price INTEGER, Weight REAL, MadeAt TEXT, Cost INTEGER, Margin INTEGER, Code TEXT, Huge TEXT, Internal TEXT,
    ShopID INTEGER, DeletedAt TEXT, VersionID INTEGER NOT NULL)`);
  direct.exec(
    `INSERT INTO Shops VALUES (1, 'north', 'alpha', NULL), (2, 'north', 'beta', '2024-06-01T00:00:00.000Z'), (3, 'south', 'gamma', NULL)`,
  );
  const insert = direct.prepare("INSERT INTO Items VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, 'x', ?, ?, 0)");
  // id, tenant, name, kind, label, quantity, price (cents), weight, madeAt, cost, margin, code, shop, deletedAt
  insert.run(1, "north", "a1", "tool", "lb", 2, 1000, 1.5, "2024-01-01T10:00:00.000Z", 100, 50, "c1", 1, null);
  insert.run(2, "north", "a2", "tool", "la", 3, 2001, null, "2024-01-07T23:59:00.000Z", 200, 25, "c2", 1, null);
  insert.run(3, "north", "a3", "toy", "lc", 5, null, 2.25, "2024-01-08T00:00:00.000Z", null, null, null, 2, null);
  insert.run(4, "north", "a4", "toy", "ld", 7, 1, 0.25, "2024-02-29T12:00:00.000Z", null, null, null, null, null);
  insert.run(5, "north", "a5", "toy", "le", 11, 500, 1.0, null, null, null, null, 1, null);
  insert.run(6, "north", "a6", "gift", "lf", 13, 10000, 4, "2023-12-31T23:59:59.999Z", null, null, null, 1, "2024-05-01T00:00:00.000Z");
  insert.run(7, "south", "s1", "tool", "lg", 17, 100000, 8, "2024-03-03T00:00:00.000Z", null, null, null, 3, null);
  // 32 "dust" items whose prices sum to 0.01 and 32 "neg" ones to -0.01: averages of 0.0003125 and -0.0003125.
  for (let n = 0; n < 32; n++) {
    insert.run(100 + n, "north", `d${n}`, "dust", "lz", 1, n === 0 ? 1 : 0, null, null, null, null, null, null, null);
    insert.run(200 + n, "north", `n${n}`, "neg", "lz", 1, n === 0 ? -1 : 0, null, null, null, null, null, null, null);
  }
  direct.close();
  database = new SqliteDatabase({ filename: file, name: file });
  server = new HttpServer(Context);
  server.port = 0;
  server.addBindAddress("127.0.0.1");
  server.allowAnonymous = true;
  server.registerController(Items, "/items");
  server.registerController(SmallItems, "/small-items");
  server.registerController(HookedItems, "/hooked-items");
  await server.start();
});

after(async () => {
  await server.stop();
  await database.close();
  rmSync(directory, { recursive: true, force: true });
});

type Row = Record<string, unknown>;

async function call(path: string, body: unknown, tenant = "north"): Promise<Answer> {
  return ask(server.port, path, {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { "Content-Type": "application/json", "X-Tenant": tenant },
  });
}

async function aggregate(body: unknown, path = "/items", tenant = "north"): Promise<{ data: Row[]; nextCursor?: string }> {
  const answer = await call(`${path}/aggregate`, body, tenant);
  assert.equal(answer.status, 200, answer.text);
  return answer.json as { data: Row[]; nextCursor?: string };
}

async function refused(body: unknown, message: RegExp, path = "/items"): Promise<void> {
  const answer = await call(`${path}/aggregate`, body);
  assert.equal(answer.status, 400, `${JSON.stringify(body)}: ${answer.text}`);
  assert.match((answer.json as { message: string }).message, message, JSON.stringify(body));
}

describe("aggregates over HTTP", () => {
  test("groups by a column and counts, sums and averages each group, soft-deleted rows left out", async () => {
    const { data, nextCursor } = await aggregate({
      where: [{ columnName: "kind", condition: "IN", value: ["tool", "toy", "gift"] }],
      groupBy: ["kind"],
      metrics: [
        { fn: "count", as: "n" },
        { fn: "sum", column: "price", as: "total" },
        { fn: "avg", column: "price", as: "mean" },
        { fn: "sum", column: "quantity", as: "q" },
        { fn: "avg", column: "weight", as: "w" },
        { fn: "count", column: "price", as: "priced" },
        { fn: "countDistinct", column: "shopId", as: "shops" },
      ],
    });
    assert.deepEqual(data, [
      { kind: "tool", n: 2, total: "30.01", mean: "15.005000", q: 5, w: 1.5, priced: 2, shops: 1 },
      { kind: "toy", n: 3, total: "5.01", mean: "2.505000", q: 23, w: 3.5 / 3, priced: 2, shops: 2 },
    ]);
    assert.equal(nextCursor, undefined);
  });

  test("a decimal average has four digits more than its column, rounded half away from zero", async () => {
    const { data } = await aggregate({
      where: [{ columnName: "kind", condition: "IN", value: ["dust", "neg"] }],
      groupBy: ["kind"],
      metrics: [
        { fn: "avg", column: "price", as: "mean" },
        { fn: "sum", column: "price", as: "total" },
      ],
    });
    assert.deepEqual(data, [
      { kind: "dust", mean: "0.000313", total: "0.01" },
      { kind: "neg", mean: "-0.000313", total: "-0.01" },
    ]);
  });

  test("date periods group by the UTC day, the week from Monday, the month and the year; NULL is the lowest group", async () => {
    const periods = async (truncate: string): Promise<Row[]> =>
      (
        await aggregate({
          where: [{ columnName: "kind", condition: "IN", value: ["tool", "toy", "gift"] }],
          groupBy: [{ column: "madeAt", truncate }],
          metrics: [{ fn: "count", as: "n" }],
        })
      ).data;
    assert.deepEqual(await periods("day"), [
      { madeAt: null, n: 1 },
      { madeAt: "2024-01-01T00:00:00.000Z", n: 1 },
      { madeAt: "2024-01-07T00:00:00.000Z", n: 1 },
      { madeAt: "2024-01-08T00:00:00.000Z", n: 1 },
      { madeAt: "2024-02-29T00:00:00.000Z", n: 1 },
    ]);
    assert.deepEqual(await periods("week"), [
      { madeAt: null, n: 1 },
      { madeAt: "2024-01-01T00:00:00.000Z", n: 2 },
      { madeAt: "2024-01-08T00:00:00.000Z", n: 1 },
      { madeAt: "2024-02-26T00:00:00.000Z", n: 1 },
    ]);
    assert.deepEqual(await periods("MONTH"), [
      { madeAt: null, n: 1 },
      { madeAt: "2024-01-01T00:00:00.000Z", n: 3 },
      { madeAt: "2024-02-01T00:00:00.000Z", n: 1 },
    ]);
    assert.deepEqual(await periods("year"), [
      { madeAt: null, n: 1 },
      { madeAt: "2024-01-01T00:00:00.000Z", n: 4 },
    ]);
  });

  test("a referenced entity's column groups its rows; an empty or soft-deleted reference groups under NULL", async () => {
    const { data } = await aggregate({
      where: [{ columnName: "kind", condition: "<>", value: "neg" }],
      groupBy: ["shop.name", { column: "madeAt", truncate: "year", as: "year" }],
      metrics: [{ fn: "count", as: "n" }],
      orderBy: [{ columnName: "n", direction: "DESC" }],
    });
    assert.deepEqual(data, [
      { "shop.name": null, year: null, n: 32 },
      { "shop.name": null, year: "2024-01-01T00:00:00.000Z", n: 2 },
      { "shop.name": "alpha", year: "2024-01-01T00:00:00.000Z", n: 2 },
      { "shop.name": "alpha", year: null, n: 1 },
    ]);
  });

  test("another tenant's rows are never measured, and its references never reached", async () => {
    const { data } = await aggregate(
      {
        groupBy: ["kind", "shop.name"],
        metrics: [
          { fn: "count", as: "n" },
          { fn: "sum", column: "price", as: "total" },
        ],
      },
      "/items",
      "south",
    );
    assert.deepEqual(data, [{ kind: "tool", "shop.name": "gamma", n: 1, total: "1000.00" }]);
    const none = await call("/items/aggregate", { metrics: [{ fn: "count", as: "n" }] }, "");
    assert.equal(none.status, 403, none.text);
  });

  test("without groupBy the answer is one row, also over no row at all: count 0, other metrics null", async () => {
    const { data } = await aggregate({
      where: [{ columnName: "kind", condition: "=", value: "nothing" }],
      metrics: [
        { fn: "count", as: "n" },
        { fn: "sum", column: "price", as: "total" },
        { fn: "avg", column: "weight", as: "w" },
        { fn: "min", column: "madeAt", as: "first" },
        { fn: "countDistinct", column: "kind", as: "kinds" },
      ],
    });
    assert.deepEqual(data, [{ n: 0, total: null, w: null, first: null, kinds: 0 }]);
    const grouped = await aggregate({
      where: [{ columnName: "kind", condition: "=", value: "nothing" }],
      groupBy: ["kind"],
      metrics: [{ fn: "count", as: "n" }],
    });
    assert.deepEqual(grouped.data, []);
  });

  test("min and max measure numbers, dates and (where @Aggregatable allows it) text", async () => {
    const { data } = await aggregate({
      where: [{ columnName: "kind", condition: "=", value: "tool" }],
      metrics: [
        { fn: "min", column: "price", as: "low" },
        { fn: "max", column: "madeAt", as: "last" },
        { fn: "min", column: "label", as: "firstLabel" },
        { fn: "max", column: "weight", as: "heaviest" },
        { fn: "sum", column: "margin", as: "margin" },
      ],
    });
    assert.deepEqual(data, [{ low: "10.00", last: "2024-01-07T23:59:00.000Z", firstLabel: "la", heaviest: 1.5, margin: "0.75" }]);
  });

  test("having keeps the groups whose metrics hold, with or groups and IN; orderBy orders by metrics and groups", async () => {
    const body = {
      groupBy: ["kind"],
      metrics: [
        { fn: "count", as: "n" },
        { fn: "avg", column: "price", as: "mean" },
      ],
    };
    const big = await aggregate({
      ...body,
      having: [{ columnName: "n", condition: ">", value: 2 }],
      orderBy: [{ columnName: "kind", direction: "DESC" }],
    });
    assert.deepEqual(
      big.data.map((row) => row.kind),
      ["toy", "neg", "dust"],
    );
    const either = await aggregate({
      ...body,
      having: [
        {
          or: [
            { columnName: "N", condition: "=", value: 2 },
            { columnName: "n", condition: "IN", value: [3] },
          ],
        },
      ],
    });
    assert.deepEqual(
      either.data.map((row) => row.kind),
      ["tool", "toy"],
    );
    const averages = await aggregate({
      ...body,
      having: [{ columnName: "mean", condition: ">=", value: "2.505" }],
      orderBy: [{ columnName: "mean" }],
    });
    assert.deepEqual(
      averages.data.map((row) => [row.kind, row.mean]),
      [
        ["toy", "2.505000"],
        ["tool", "15.005000"],
      ],
    );
    const priced = await aggregate({ ...body, having: [{ columnName: "mean", condition: "IS NULL" }] });
    assert.deepEqual(priced.data, []);
  });

  test("keyset pages over groups walk every group once, in order, the last page without a cursor", async () => {
    const body = {
      groupBy: ["kind"],
      metrics: [
        { fn: "count", as: "n" },
        { fn: "avg", column: "price", as: "mean" },
      ],
      orderBy: [{ columnName: "n", direction: "DESC" }],
      limit: 2,
    };
    const first = await aggregate(body);
    assert.deepEqual(
      first.data.map((row) => row.kind),
      ["dust", "neg"],
    );
    assert.equal(typeof first.nextCursor, "string");
    const second = await aggregate({ ...body, after: first.nextCursor });
    assert.deepEqual(
      second.data.map((row) => row.kind),
      ["toy", "tool"],
    );
    assert.equal(second.nextCursor, undefined);
    const byMean = { ...body, orderBy: [{ columnName: "mean", direction: "DESC" }], limit: 1 };
    const kinds: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const answer = await aggregate(cursor === undefined ? byMean : { ...byMean, after: cursor });
      kinds.push(...answer.data.map((row) => row.kind));
      cursor = answer.nextCursor;
      if (cursor === undefined) break;
    }
    assert.deepEqual(kinds, ["tool", "toy", "dust", "neg"]);
  });

  test("more groups than maxGroups answer 400; fewer after having answer", async () => {
    await refused(
      { groupBy: ["kind"], metrics: [{ fn: "count", as: "n" }] },
      /The aggregate has 4 groups, more than the 3 this server answers/,
      "/small-items",
    );
    const { data, nextCursor } = await aggregate(
      { groupBy: ["kind"], metrics: [{ fn: "count", as: "n" }], having: [{ columnName: "n", condition: ">", value: 2 }] },
      "/small-items",
    );
    assert.deepEqual(data, [
      { kind: "dust", n: 32 },
      { kind: "neg", n: 32 },
    ]);
    assert.equal(typeof nextCursor, "string", "the ceiling of a page is the route's maxLimit");
  });

  test("the application's onAddEntityFilter conditions narrow the rows measured, as in select", async () => {
    const { data } = await aggregate({ groupBy: ["kind"], metrics: [{ fn: "count", as: "n" }] }, "/hooked-items");
    assert.deepEqual(data, [{ kind: "toy", n: 2 }]);
  });

  test("a column that is not aggregatable answers 400 naming it, wherever the body names it", async () => {
    const notAggregatable = /Column (cost|internal|code|nothing|tenantId|versionid) cannot be used in an aggregate/;
    const notGroupable =
      /Column (cost|internal|code|nothing|tenantId|margin|shop.nothing|shop.tenantId|shop.deletedAt2) cannot be used in an aggregate's groupBy/;
    for (const column of ["cost", "internal", "code", "nothing", "tenantId"]) {
      await refused({ metrics: [{ fn: "count", column, as: "n" }] }, notAggregatable);
      await refused({ groupBy: [column], metrics: [{ fn: "count", as: "n" }] }, notGroupable);
    }
    await refused({ groupBy: ["margin"], metrics: [{ fn: "count", as: "n" }] }, notGroupable);
    await refused({ groupBy: ["shop.nothing"], metrics: [{ fn: "count", as: "n" }] }, notGroupable);
    await refused({ groupBy: ["shop.tenantId"], metrics: [{ fn: "count", as: "n" }] }, notGroupable);
    await refused({ metrics: [{ fn: "count", column: "margin", as: "n" }] }, /The metric count is not allowed on margin/);
    await refused({ metrics: [{ fn: "sum", column: "versionid", as: "n" }] }, /The metric sum is not allowed on versionid/);
    await refused(
      { where: [{ columnName: "cost", condition: "IS NULL" }], metrics: [{ fn: "count", as: "n" }] },
      /Column cost cannot be used in a filter/,
    );
  });

  test("sum and avg of a text column, and min of text that @Aggregatable does not allow, answer 400", async () => {
    await refused(
      { metrics: [{ fn: "sum", column: "name", as: "s" }] },
      /The metric sum does not apply to name, a text column: sum and avg need a numeric column/,
    );
    await refused({ metrics: [{ fn: "avg", column: "kind", as: "s" }] }, /The metric avg does not apply to kind, a text column/);
    await refused({ metrics: [{ fn: "min", column: "name", as: "s" }] }, /The metric min is not allowed on name/);
    await refused({ metrics: [{ fn: "sum", column: "madeAt", as: "s" }] }, /The metric sum does not apply to madeAt, a date column/);
    await refused({ metrics: [{ fn: "sum", column: "label", as: "s" }] }, /The metric sum does not apply to label/);
  });

  test("a decimal SQLite cannot add exactly (more than 18 digits) answers 400 for sum and avg; min and max still answer", async () => {
    await refused(
      { metrics: [{ fn: "sum", column: "huge", as: "s" }] },
      /The metric sum of huge cannot be computed exactly on this database engine/,
    );
    await refused({ metrics: [{ fn: "avg", column: "huge", as: "s" }] }, /The metric avg of huge cannot be computed exactly/);
    const { data } = await aggregate({ metrics: [{ fn: "max", column: "huge", as: "s" }] });
    assert.deepEqual(data, [{ s: null }]);
  });

  test("every malformed part of the body answers 400 naming it", async () => {
    const count = [{ fn: "count", as: "n" }];
    const cases: [unknown, RegExp][] = [
      ["[1]", /The aggregate body must be a JSON object/],
      ['"text"', /The aggregate body must be a JSON object/],
      ["{", /./],
      ["", /The aggregate body needs metrics/],
      [{}, /The aggregate body needs metrics/],
      [{ metrics: count, includeDeleted: true }, /unknown property "includeDeleted"/],
      [{ metrics: [] }, /The aggregate body needs metrics/],
      [{ metrics: {} }, /The aggregate property metrics must be an array/],
      [{ metrics: Array.from({ length: 17 }, (_, i) => ({ fn: "count", as: `n${i}` })) }, /metrics has more than 16 items/],
      [{ metrics: ["count"] }, /Each metrics item must be an object/],
      [{ metrics: [{ as: "n" }] }, /Each metrics item must be an object/],
      [{ metrics: [{ fn: 3, as: "n" }] }, /Each metrics item must be an object/],
      [{ metrics: [{ fn: "median", column: "price", as: "n" }] }, /Unknown aggregate function "median"/],
      [{ metrics: [{ fn: "count" }] }, /The metric count has no name/],
      [{ metrics: [{ fn: "count", as: "" }] }, /An aggregate name \(as\) must be a non-empty string/],
      [{ metrics: [{ fn: "count", as: "x".repeat(101) }] }, /at most 100 characters/],
      [{ metrics: [{ fn: "count", as: 5 }] }, /An aggregate name \(as\) must be/],
      [{ metrics: [{ fn: "count", as: "\ud800" }] }, /An aggregate name \(as\) must be/],
      [
        {
          metrics: [
            { fn: "count", as: "n" },
            { fn: "sum", column: "price", as: "N" },
          ],
        },
        /names "N" twice/,
      ],
      [{ groupBy: ["kind"], metrics: [{ fn: "count", as: "kind" }] }, /names "kind" twice/],
      [{ metrics: [{ fn: "sum", as: "n" }] }, /The metric sum needs a column/],
      [{ metrics: [{ fn: "count", column: 7, as: "n" }] }, /Each metrics item must be an object/],
      [{ metrics: [{ fn: "count", as: "n", alias: "m" }] }, /A metrics item has an unknown property "alias"/],
      [{ groupBy: "kind", metrics: count }, /The aggregate property groupBy must be an array/],
      [{ groupBy: Array.from({ length: 9 }, () => "kind"), metrics: count }, /groupBy has more than 8 items/],
      [{ groupBy: [3], metrics: count }, /Each groupBy item must be a column name or an object/],
      [{ groupBy: [{ truncate: "day" }], metrics: count }, /Each groupBy item must be a column name or an object/],
      [
        { groupBy: [{ column: "madeAt", truncate: "hour" }], metrics: count },
        /truncate of a groupBy item must be day, week, month or year/,
      ],
      [{ groupBy: [{ column: "madeAt", truncate: 1 }], metrics: count }, /truncate of a groupBy item must be/],
      [{ groupBy: [{ column: "kind", truncate: "day" }], metrics: count }, /Column kind is not a date/],
      [{ groupBy: [{ column: "kind", every: "day" }], metrics: count }, /A groupBy item has an unknown property "every"/],
      [{ groupBy: [{ column: "kind", as: "" }], metrics: count }, /An aggregate name \(as\) must be/],
      [{ where: {}, metrics: count }, /The filter property where must be an array/],
      [{ where: [{ columnName: "kind", condition: "LIKE", value: 3 }], metrics: count }, /The value for kind must be a string/],
      [{ where: [{ columnName: "quantity", condition: "=", value: "x" }], metrics: count }, /quantity/],
      [{ metrics: count, having: {} }, /The aggregate property having must be an array/],
      [{ metrics: count, having: [3] }, /Each having item must be an object/],
      [
        { metrics: count, having: [{ columnName: "n", condition: ">", value: 1, extra: 1 }] },
        /A having item has an unknown property "extra"/,
      ],
      [
        { groupBy: ["kind"], metrics: count, having: [{ columnName: "kind", condition: "=", value: "toy" }] },
        /names kind, which is no metric/,
      ],
      [{ metrics: count, having: [{ columnName: "m", condition: ">", value: 1 }] }, /names m, which is no metric/],
      [{ metrics: count, having: [{ columnName: "n", value: 1 }] }, /The condition on n is missing/],
      [{ metrics: count, having: [{ columnName: "n", condition: "LIKE", value: "1" }] }, /Unknown having condition "LIKE"/],
      [{ metrics: count, having: [{ columnName: "n", condition: ">" }] }, /The condition > on n needs a value/],
      [{ metrics: count, having: [{ columnName: "n", condition: "IS NULL", value: 1 }] }, /The condition IS NULL on n takes no value/],
      [{ metrics: count, having: [{ columnName: "n", condition: "IN", value: 1 }] }, /IN on n needs an array/],
      [{ metrics: count, having: [{ columnName: "n", condition: ">", value: "many" }] }, /The value for n must be an integer/],
      [{ metrics: count, having: [{ columnName: "n", condition: ">", value: 1.5 }] }, /The value for n must be an integer/],
      [
        { metrics: [{ fn: "sum", column: "price", as: "t" }], having: [{ columnName: "t", condition: ">", value: "1.001" }] },
        /The value for t must be a decimal number with at most 2 digits/,
      ],
      [
        { metrics: [{ fn: "avg", column: "weight", as: "t" }], having: [{ columnName: "t", condition: ">", value: "1" }] },
        /The value for t must be a number/,
      ],
      [
        { metrics: [{ fn: "max", column: "madeAt", as: "t" }], having: [{ columnName: "t", condition: ">", value: "yesterday" }] },
        /The value for t must be a value of the column's type/,
      ],
      [{ metrics: count, having: [{ or: [] }] }, /The or property of a where item must be a non-empty array/],
      [
        { metrics: count, having: [{ or: [{ or: [{ or: [{ or: [{ or: [{ columnName: "n", condition: ">", value: 1 }] }] }] }] }] }] },
        /nest or groups more than 4 deep/,
      ],
      [{ metrics: count, orderBy: {} }, /The aggregate property orderBy must be an array/],
      [{ metrics: count, orderBy: [{ columnName: "price" }] }, /The orderBy item names price, which is no group or metric/],
      [{ metrics: count, orderBy: [{ columnName: "n", direction: "UP" }] }, /Unknown direction "UP"/],
      [{ metrics: count, orderBy: [{ columnName: "n", direction: 1 }] }, /An orderBy direction must be the text ASC or DESC/],
      [{ metrics: count, orderBy: ["n"] }, /Each orderBy item must be an object/],
      [{ metrics: count, orderBy: [{ column: "n" }] }, /An orderBy item has an unknown property "column"/],
      [{ metrics: count, limit: "10" }, /The filter property limit must be an integer/],
      [{ metrics: count, limit: 1.5 }, /The filter property limit must be an integer/],
      [{ metrics: count, after: 3 }, /The aggregate property after must be a cursor/],
      [{ metrics: count, after: "not a cursor!" }, /The aggregate property after must be a cursor/],
      [{ metrics: count, after: Buffer.from("{}").toString("base64url") }, /The aggregate property after must be a cursor/],
      [{ metrics: count, after: "x".repeat(5000) }, /The aggregate property after must be a cursor/],
    ];
    for (const [body, message] of cases) await refused(body, message);
    const small = { groupBy: ["kind"], metrics: count };
    await refused(
      {
        ...small,
        having: [
          { columnName: "n", condition: ">", value: 1 },
          { columnName: "n", condition: ">", value: 1 },
          { columnName: "n", condition: "<", value: 9 },
        ],
      },
      /more than 2 conditions/,
      "/small-items",
    );
    await refused({ ...small, orderBy: [{ columnName: "n" }, { columnName: "kind" }] }, /orderBy has more than 1 items/, "/small-items");
  });

  test("a cursor of another order, or whose values do not fit their types, answers 400", async () => {
    const body = { groupBy: ["kind"], metrics: [{ fn: "count", as: "n" }], limit: 1 };
    const { nextCursor } = await aggregate(body);
    assert.equal(typeof nextCursor, "string");
    await refused(
      { ...body, orderBy: [{ columnName: "n" }], after: nextCursor },
      /The cursor in after was made for another aggregate or orderBy/,
    );
    const forged = (values: unknown[]): string => Buffer.from(JSON.stringify(values)).toString("base64url");
    await refused({ ...body, after: forged(["kind+", 5]) }, /carries a value for kind that is not of its type/);
    await refused({ ...body, after: forged(["kind+", { x: 1 }]) }, /carries a value for kind that is not of its type/);
    await refused({ ...body, after: forged(["kind+"]) }, /made for another aggregate or orderBy/);
    const byCount = { ...body, orderBy: [{ columnName: "n" }] };
    await refused({ ...byCount, after: forged(["n:count+,kind+", "two", "toy"]) }, /carries a value for n that is not of its type/);
    // A well-formed cursor of forged values is a page after them, never SQL.
    const page = await aggregate({ ...body, after: forged(["kind+", "tool' OR 1=1 --"]) });
    assert.deepEqual(page.data, [{ kind: "toy", n: 3 }]);
  });
});

describe("count modes of select", () => {
  const select = async (count: unknown, extra: Row = {}): Promise<Answer> =>
    call("/items/select", { where: [{ columnName: "kind", condition: "=", value: "toy" }], limit: 1, count, ...extra });

  test('"exact" and true count every row, "none" and false count none', async () => {
    for (const count of ["exact", true, "EXACT"]) {
      const answer = await select(count);
      assert.equal(answer.status, 200, answer.text);
      const json = answer.json as Row;
      assert.equal(json.count, 3);
      assert.equal("countKind" in json, false);
    }
    for (const count of ["none", false]) {
      const answer = await select(count);
      assert.equal(answer.status, 200, answer.text);
      assert.equal("count" in (answer.json as Row), false);
    }
  });

  test('{"atMost": n} counts exactly up to n and says "atLeast" beyond', async () => {
    const capped = (await select({ atMost: 2 })).json as Row;
    assert.equal(capped.count, 2);
    assert.equal(capped.countKind, "atLeast");
    const exact = (await select({ atMost: 3 })).json as Row;
    assert.equal(exact.count, 3);
    assert.equal("countKind" in exact, false);
    const offset = (await select({ atMost: 1 }, { start: 1 })).json as Row;
    assert.deepEqual([offset.count, offset.countKind, (offset.data as Row[]).length], [1, "atLeast", 1]);
  });

  test('"estimated" on SQLite, which keeps no statistics, answers the exact count without countKind, on keyset pages too', async () => {
    const first = (await select("estimated")).json as Row;
    assert.equal(first.count, 3);
    assert.equal("countKind" in first, false);
    const next = (await select("estimated", { after: first.nextCursor })).json as Row;
    assert.equal(next.count, 3, "a page read with after counts when the body asks");
  });

  test("a count that is none of the modes answers 400", async () => {
    for (const count of ["approximate", 3, { atMost: 0 }, { atMost: 1.5 }, { atMost: "5" }, { atMost: 5, exact: true }, {}, [true]]) {
      const answer = await select(count);
      assert.equal(answer.status, 400, JSON.stringify(count));
      assert.match(
        (answer.json as { message: string }).message,
        /count must be true, false, "exact", "none", "estimated" or \{"atMost": n\}/,
      );
    }
  });
});
