import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  Column,
  Context,
  Join,
  JoinKind,
  JsonSerializerConfig,
  PrimaryKey,
  Relation,
  RelationConstraintError,
  Sequence,
  Table,
  Type,
  VersionColumn,
  WhereClause,
  WhereClauseParameter,
} from "tenon";
import { HttpContext, HttpEntityReader, HttpEntityWriter } from "tenon/http";
import { Gadget, Order, OrderLine } from "../fixtures.js";
import { type EngineHarness, sequenceDdl, type TestDatabase } from "../harness.js";
import { createSchema } from "../schema.js";

/** A line with its order's number and its company's name: an aliased join and a join chained through the alias. */
@Table("OrderLines")
@Join(JoinKind.Inner, "Orders", "O", "OrderID", "ID")
@Join(JoinKind.Left, "Companies", "C", "O", "CompanyID", "ID")
class LineView {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Product", Type.string) product = "";
  @Column("O", "Number", Type.string) orderNumber = "";
  @Column("C", "Name", Type.string.orNull) companyName: string | null = null;
}

/** The same table joined twice under two aliases (here on the same key, so both name the order's company). */
@Table("Orders")
@Join(JoinKind.Left, "Companies", "Buyer", "CompanyID", "ID")
@Join(JoinKind.Inner, "Companies", "Seller", "CompanyID", "ID")
class OrderParties {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Buyer", "Name", Type.string.orNull) buyer: string | null = null;
  @Column("Seller", "Name", Type.string.orNull) seller: string | null = null;
}

/** One fixed-WHERE entity per constant type of @WhereClauseParameter, each selecting one gadget. */
const constants = {
  string: (() => {
    @Table("Gadgets")
    @WhereClause("Label = :v")
    @WhereClauseParameter("v", "needle")
    class ByString {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
    }
    return ByString;
  })(),
  int: (() => {
    @Table("Gadgets")
    @WhereClause("VersionID = :v")
    @WhereClauseParameter("v", 7)
    class ByInt {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
    }
    return ByInt;
  })(),
  float: (() => {
    @Table("Gadgets")
    @WhereClause("Ratio = :v")
    @WhereClauseParameter("v", 0.625)
    class ByFloat {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
    }
    return ByFloat;
  })(),
  bigint: (() => {
    @Table("Gadgets")
    @WhereClause("Big = :v")
    @WhereClauseParameter("v", 9007199254740993n)
    class ByBigint {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
    }
    return ByBigint;
  })(),
  boolean: (() => {
    @Table("Gadgets")
    @WhereClause("Flag = :v")
    @WhereClauseParameter("v", true)
    class ByBoolean {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
    }
    return ByBoolean;
  })(),
  date: (() => {
    @Table("Gadgets")
    @WhereClause("At = :v")
    @WhereClauseParameter("v", new Date("2026-03-04T05:06:07.008Z"))
    class ByDate {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
    }
    return ByDate;
  })(),
};

/** A shelf with two relations: books block its delete, labels go with it. */
@Table("Shelves")
@Sequence("ShelvesID")
@Relation("Books", "ShelfID", false)
@Relation("Labels", "ShelfID", true)
class Shelf {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Name", Type.string) name = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** Joins with aliases and chains, every where-clause constant type, several relations, and the reader's and writer's configurations. */
export function mappingCoverageSuite(harness: EngineHarness): void {
  describe(`${harness.name}: joins, fixed-where constants, several relations, serializer configurations`, () => {
    let db: TestDatabase;
    let order: Order;
    before(async () => {
      db = await harness.open();
      await createSchema(harness, db);
      const t = harness.types;
      await db.exec(`CREATE TABLE Shelves (ID ${t.int32} NOT NULL PRIMARY KEY, Name ${t.text} NOT NULL, VersionID ${t.int32} NOT NULL)`);
      await db.exec(`CREATE TABLE Books (ID ${t.int32} NOT NULL PRIMARY KEY, ShelfID ${t.int32} NOT NULL)`);
      await db.exec(`CREATE TABLE Labels (ID ${t.int32} NOT NULL PRIMARY KEY, ShelfID ${t.int32} NOT NULL)`);
      if (harness.hasSequences) await db.exec(sequenceDdl(harness, "ShelvesID"));
      await using context = new Context(db.database);
      await context.execute("INSERT INTO Companies (ID, Name, Active, CreditLimit, VersionID) VALUES (901, 'Buyer Inc', :t, 42, 0)", {
        t: true,
      });
      await context.execute("INSERT INTO Companies (ID, Name, Active, VersionID) VALUES (902, 'Nobody Ltd', :t, 0)", { t: true });
      order = Object.assign(new Order(), { number: "SO-J1", total: "42.00" });
      order.company.id = 901;
      await context.insert(order);
      const orphan = Object.assign(new Order(), { number: "SO-J2", total: "0.00" });
      await context.insert(orphan);
      for (const [orderId, product] of [
        [order.id, "Anvil"],
        [orphan.id, "Rope"],
      ] as const) {
        const line = Object.assign(new OrderLine(), { product, quantity: 1, price: "1.00" });
        line.order.id = orderId;
        await context.insert(line);
      }
    });
    after(async () => db.close());

    it("an aliased inner join and a left join chained through its alias read the order number and the company name", async () => {
      await using context = new Context(db.database);
      const rows = await context.selectAll(LineView);
      const byProduct = new Map(rows.map((row) => [row.product, [row.orderNumber, row.companyName]]));
      assert.deepEqual(byProduct.get("Anvil"), ["SO-J1", "Buyer Inc"]);
      assert.deepEqual(byProduct.get("Rope"), ["SO-J2", null], "the left join keeps a line whose order has no company");
    });

    it("one table joined twice under two aliases reads each alias's own columns", async () => {
      await using context = new Context(db.database);
      const parties = await context.get(OrderParties, order.id);
      assert.deepEqual([parties.buyer, parties.seller], ["Buyer Inc", "Buyer Inc"]);
      const all = await context.selectAll(OrderParties);
      assert.equal(
        all.some((row) => row.id !== order.id),
        false,
        "the inner join under the second alias drops the order without a company",
      );
    });

    it("every constant type of @WhereClauseParameter selects its row on this engine", async () => {
      await using context = new Context(db.database);
      const needle = Object.assign(new Gadget(), {
        label: "needle",
        ratio: 0.625,
        big: 9007199254740993n,
        flag: true,
        at: new Date("2026-03-04T05:06:07.008Z"),
      });
      await context.insert(needle);
      await context.execute("UPDATE Gadgets SET VersionID = 7 WHERE ID = :id", { id: needle.id });
      const hay = Object.assign(new Gadget(), {
        label: "hay",
        ratio: 0.5,
        big: 9007199254740992n,
        flag: false,
        at: new Date("2026-03-04T05:06:07.009Z"),
      });
      await context.insert(hay);
      for (const [type, entityClass] of Object.entries(constants)) {
        const found = (await context.selectAll(entityClass as new () => { id: number })).map((row) => row.id);
        assert.deepEqual(found, [needle.id], `the ${type} constant`);
      }
    });

    it("of two relations on one class, the blocking one refuses the delete and the cascading one waits for it", async () => {
      await using context = new Context(db.database);
      const shelf = Object.assign(new Shelf(), { name: "Top" });
      await context.insert(shelf);
      await context.execute("INSERT INTO Books (ID, ShelfID) VALUES (1, :s)", { s: shelf.id });
      await context.execute("INSERT INTO Labels (ID, ShelfID) VALUES (1, :s), (2, :s)", { s: shelf.id });
      await assert.rejects(
        context.delete(shelf),
        (error: unknown) => error instanceof RelationConstraintError && error.childTable === "Books",
      );
      assert.equal((await db.rows("SELECT ID FROM Labels")).length, 2, "a refused delete cascades nothing");
      await context.execute("DELETE FROM Books WHERE ShelfID = :s", { s: shelf.id });
      await context.delete(await context.get(Shelf, shelf.id));
      assert.equal((await db.rows("SELECT ID FROM Labels")).length, 0);
      assert.equal((await db.rows("SELECT ID FROM Shelves")).length, 0);
    });

    it("the reader's and the writer's serializer configuration decides references and details in their answers", async () => {
      await using context = new HttpContext(db.database);
      const reader = new HttpEntityReader(Order, context);
      const keys = (json: unknown): string[] => Object.keys(json as object).sort();
      assert.ok(keys(await reader.get(order.id)).includes("lines"), "get defaults to withDetails");
      assert.deepEqual(keys(await reader.get(order.id, JsonSerializerConfig.entityOnly)), [
        "companyId",
        "id",
        "number",
        "total",
        "versionId",
      ]);
      const related = (await reader.find(order.id, JsonSerializerConfig.withRelations)) as Record<string, unknown>;
      assert.equal((related.company as Record<string, unknown>).name, "Buyer Inc");
      assert.equal(related.lines, undefined);
      const page = await reader.selectAll(JsonSerializerConfig.entityOnly);
      assert.ok(page.data.every((row) => (row as Record<string, unknown>).company === undefined));
      const selected = await reader.select(
        { where: [{ columnName: "number", condition: "=", value: "SO-J1" }] },
        JsonSerializerConfig.withDetails,
      );
      assert.equal(((selected.data[0] as Record<string, unknown>).lines as unknown[]).length, 1);
      const writer = new HttpEntityWriter(Order, context);
      const inserted = (await writer.insert({ number: "SO-J3", companyId: 901, total: "1.00" }, JsonSerializerConfig.entityOnly)) as Record<
        string,
        unknown
      >;
      assert.deepEqual(keys(inserted), ["companyId", "id", "number", "total", "versionId"]);
      const updated = (await writer.update({ ...inserted, number: "SO-J3b" }, JsonSerializerConfig.withRelations)) as Record<
        string,
        unknown
      >;
      assert.equal((updated.company as Record<string, unknown>).name, "Buyer Inc");
      assert.equal(updated.lines, undefined);
    });
  });
}
