import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EntityMapping, FilterBuilder, Lazy } from "tenon";
import { SqliteDialect } from "tenon/sqlite";
import { statementsOf } from "../../src/sql/entity-statements.js";
import { Item } from "../orm/fixtures-validation.js";

const render = (builder: FilterBuilder<Item>) => statementsOf(EntityMapping.of(Item), new SqliteDialect()).select(builder.build());
const where = (sql: string): string => sql.slice(sql.indexOf(" WHERE ") + 7, sql.indexOf(" ORDER BY "));

describe("the filter builder's SQL", () => {
  it("values are bound in order of appearance and never written into the SQL", () => {
    const statement = render(
      new FilterBuilder(Item)
        .where("name")
        .equal("O'Brien; DROP TABLE Items")
        .or((any) => any.where("qty").between(1, 5).where("price").in([1.5, 2.5])),
    );
    assert.equal(where(statement.sql), `"Name" = ? AND ("Qty" BETWEEN ? AND ? OR "Price" IN (?, ?))`);
    assert.deepEqual(statement.parameters, ["O'Brien; DROP TABLE Items", 1, 5, 1.5, 2.5]);
  });

  it("not() wraps its group and a single-item group needs no extra parentheses", () => {
    const statement = render(
      new FilterBuilder(Item).not((all) => all.where("qty").greater(1).where("note").isNull()).or((any) => any.where("name").like("a%")),
    );
    assert.equal(where(statement.sql), `NOT (("Qty" > ? AND "Note" IS NULL)) AND "Name" LIKE ?`);
  });

  it("a Lazy value compares its key and equal(null) becomes IS NULL", () => {
    const statement = render(
      new FilterBuilder(Item).where("club").equal(new Lazy(7)).where("note").equal(null).where("note").notEqual(null),
    );
    assert.equal(where(statement.sql), `"ClubID" = ? AND "Note" IS NULL AND "Note" IS NOT NULL`);
    assert.deepEqual(statement.parameters, [7]);
  });

  it("addWhere after the builder's conditions keeps its own parameters after p0, p1, ...", () => {
    const filter = new FilterBuilder(Item)
      .where("qty")
      .equal(3)
      .or((any) => any.where("name").equal("a").where("name").equal("b"))
      .build();
    filter.addWhere("Category = :category", { category: "fruit" });
    const statement = statementsOf(EntityMapping.of(Item), new SqliteDialect()).select(filter);
    assert.equal(where(statement.sql), `"Qty" = ? AND ("Name" = ? OR "Name" = ?) AND (Category = ?)`);
    assert.deepEqual(statement.parameters, [3, "a", "b", "fruit"]);
  });

  it("each build() answers a new Filter with the order and page", () => {
    const builder = new FilterBuilder(Item).where("qty").equal(1).orderBy("name", "desc").offset(5).limit(10);
    const first = builder.build();
    const second = builder.build();
    assert.notEqual(first, second);
    first.addWhere("1 = 1");
    assert.equal(second.conditions.length, 1);
    assert.equal(first.orderBy[0].direction, "DESC");
    assert.equal(first.offset, 5);
    assert.equal(first.limit, 10);
  });
});
