import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Context, FilterBuilder, TenonError, type Filter } from "tenon";
import { Club, createValidationSchema, Item } from "../fixtures-validation.js";
import type { EngineHarness, TestDatabase } from "../harness.js";

/** The filter builder and `Filter.addWhere`, checked by the rows they select. */
export function filtersSuite(harness: EngineHarness): void {
  describe(`${harness.name}: the filter builder`, () => {
    let db: TestDatabase;
    let clubId = 0;
    const rows: [string, string, number, number, string | null][] = [
      ["apple", "fruit", 1.5, 10, null],
      ["banana", "fruit", 0.5, 0, "ripe"],
      ["cherry", "fruit", 4, 100, null],
      ["carrot", "vegetable", 0.8, 20, "orange"],
      ["leek", "vegetable", 2, 5, null],
      ["salt", "pantry", 0.3, 1, "fine"],
      ["sugar", "pantry", 1.2, 0, null],
    ];
    before(async () => {
      db = await harness.open();
      await createValidationSchema(harness, db);
      await using context = new Context(db.database);
      const club = await context.createEntity(Club);
      club.name = "Grocers";
      await context.insert(club);
      clubId = club.id;
      for (const [name, category, price, qty, note] of rows) {
        const item = new Item();
        Object.assign(item, { name, category, price, qty, note });
        if (category === "fruit") item.club.id = clubId;
        await context.insert(item);
      }
    });
    after(async () => db.close());

    async function names(filter: Filter): Promise<string[]> {
      await using context = new Context(db.database);
      return (await context.select(Item, filter)).map((item) => item.name);
    }
    const items = (): FilterBuilder<Item> => new FilterBuilder(Item);

    it("each comparison operator selects the rows it names", async () => {
      assert.deepEqual(await names(items().where("category").equal("pantry").build()), ["salt", "sugar"]);
      assert.deepEqual(await names(items().where("category").notEqual("fruit").orderBy("name").build()), [
        "carrot",
        "leek",
        "salt",
        "sugar",
      ]);
      assert.deepEqual(await names(items().where("price").greater(1.5).build()), ["cherry", "leek"]);
      assert.deepEqual(await names(items().where("price").greaterOrEqual(1.5).build()), ["apple", "cherry", "leek"]);
      assert.deepEqual(await names(items().where("qty").less(1).build()), ["banana", "sugar"]);
      assert.deepEqual(await names(items().where("qty").lessOrEqual(1).build()), ["banana", "salt", "sugar"]);
    });

    it("like, notLike, isNull, isNotNull, between and in select by data", async () => {
      assert.deepEqual(await names(items().where("name").like("c%").build()), ["cherry", "carrot"]);
      assert.deepEqual(await names(items().where("name").notLike("%a%").build()), ["cherry", "leek"]);
      assert.deepEqual(await names(items().where("note").isNull().build()), ["apple", "cherry", "leek", "sugar"]);
      assert.deepEqual(await names(items().where("note").isNotNull().build()), ["banana", "carrot", "salt"]);
      assert.deepEqual(await names(items().where("qty").between(5, 20).build()), ["apple", "carrot", "leek"]);
      assert.deepEqual(await names(items().where("name").in(["salt", "leek", "nothing"]).build()), ["leek", "salt"]);
      assert.deepEqual(await names(items().where("name").in([]).build()), []);
      assert.deepEqual(await names(items().where("note").equal(null).build()), ["apple", "cherry", "leek", "sugar"]);
    });

    it("a Lazy reference is compared by its key", async () => {
      assert.deepEqual(await names(items().where("club").equal(clubId).build()), ["apple", "banana", "cherry"]);
      assert.deepEqual(await names(items().where("club").isNull().orderBy("name").build()), ["carrot", "leek", "salt", "sugar"]);
    });

    it("top-level conditions are ANDed and or() groups are explicit", async () => {
      const filter = items()
        .where("category")
        .equal("fruit")
        .or((any) => any.where("qty").equal(0).where("price").greater(3))
        .build();
      assert.deepEqual(await names(filter), ["banana", "cherry"]);
      const nested = items()
        .or((any) =>
          any
            .and((all) => all.where("category").equal("pantry").where("qty").equal(0))
            .where("name")
            .equal("leek"),
        )
        .build();
      assert.deepEqual(await names(nested), ["leek", "sugar"]);
    });

    it("not() negates its group", async () => {
      assert.deepEqual(
        await names(
          items()
            .not((all) => all.where("category").equal("fruit"))
            .orderBy("name")
            .build(),
        ),
        ["carrot", "leek", "salt", "sugar"],
      );
      assert.deepEqual(
        await names(
          items()
            .where("category")
            .equal("fruit")
            .not((all) => all.where("qty").greater(5).where("price").less(2))
            .build(),
        ),
        ["banana", "cherry"],
      );
    });

    it("orderBy, offset and limit page the rows", async () => {
      const filter = items().orderBy("price", "DESC").offset(1).limit(3).build();
      assert.deepEqual(await names(filter), ["leek", "apple", "sugar"]);
      assert.deepEqual(await names(items().orderBy("category").orderBy("qty", "desc").limit(3).build()), ["cherry", "apple", "banana"]);
    });

    it("an OR from the builder plus addWhere does not leak rows: the OR stays in parentheses", async () => {
      const filter = items()
        .or((any) => any.where("category").equal("fruit").where("category").equal("pantry"))
        .build();
      filter.addWhere("Qty = :zero", { zero: 0 });
      assert.deepEqual(await names(filter), ["banana", "sugar"]);
      const count = await (async () => {
        await using context = new Context(db.database);
        return context.selectCount(Item, filter);
      })();
      assert.equal(count, 2);
    });

    it("an addWhere of its own OR does not leak into the builder's conditions", async () => {
      const filter = items().where("category").equal("vegetable").build();
      filter.addWhere("Qty = :a OR Qty = :b", { a: 20, b: 10 });
      assert.deepEqual(await names(filter), ["carrot"]);
    });

    it("addWhere refuses the parameter names p0, p1, ... that the builder binds", () => {
      const filter = items().where("name").equal("x").build();
      assert.throws(() => filter.addWhere("Qty = :p0", { p0: 1 }), TenonError);
      assert.throws(() => filter.addWhere("Qty = :P12", { P12: 1 }), TenonError);
      filter.addWhere("Qty = :p", { p: 1 });
    });

    it("an unknown property, LIKE on a non-text column and a null comparison are refused", () => {
      assert.throws(
        () => items().where("nope"),
        (error: unknown) => error instanceof TenonError && /Item has no mapped column nope/.test(error.message),
      );
      assert.throws(() => items().orderBy("Price"), TenonError);
      assert.throws(() => items().where("qty").like("1%"), TenonError);
      assert.throws(() => items().where("qty").greater(null), TenonError);
      assert.throws(() => items().or(() => undefined), TenonError);
      assert.throws(() => items().limit(-1), TenonError);
    });
  });
}
