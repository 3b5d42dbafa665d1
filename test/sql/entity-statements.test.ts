import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  Column,
  DeletedAt,
  type Dialect,
  EntityMapping,
  FilterBuilder,
  PrimaryKey,
  Relation,
  Sequence,
  Table,
  Type,
  VersionColumn,
} from "tenon";
import { MariaDbDialect } from "tenon/mariadb";
import { PostgresDialect } from "tenon/postgres";
import { SqliteDialect } from "tenon/sqlite";
import { statementsOf } from "../../src/sql/entity-statements.js";

@Table("Items")
@Sequence("ItemsID")
@Relation("Parts", "ItemID", true)
@Relation("Notes", "ItemID", false)
class Item {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Name", Type.string) name = "";
  @DeletedAt @Column("DeletedAt", Type.date.orNull) deletedAt: Date | null = null;
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

const dialects: readonly { readonly dialect: Dialect; readonly q: (name: string) => string; readonly p: (i: number) => string }[] = [
  { dialect: new SqliteDialect(), q: (name) => `"${name}"`, p: () => "?" },
  { dialect: new PostgresDialect(), q: (name) => `"${name.toLowerCase()}"`, p: (i) => `$${i + 1}` },
  { dialect: new MariaDbDialect(), q: (name) => `\`${name}\``, p: () => "?" },
];

for (const { dialect, q, p } of dialects) {
  describe(`entity statements on ${dialect.name}`, () => {
    const statements = statementsOf(EntityMapping.of(Item), dialect);
    const columns = `${q("ID")}, ${q("Name")}, ${q("DeletedAt")}, ${q("VersionID")}`;
    const live = `${q("DeletedAt")} IS NULL`;

    it("reads by key with the key first and the soft-delete guard after it", () => {
      const where = ` FROM ${q("Items")} WHERE ${q("ID")} = ${p(0)} AND ${live}`;
      assert.deepEqual(statements.selectById(5), {
        sql: `SELECT ${columns}${where}`,
        packedSql: dialect.name === "sqlite" ? `SELECT json_array(${columns})${where}` : undefined,
        parameters: [5],
      });
    });

    it("binds a filter's values, its LIMIT and its OFFSET in placeholder order, so a page size is no new statement", () => {
      const filter = new FilterBuilder(Item).where("name").equal("A").orderBy("name", "DESC").offset(20).limit(10).build();
      const page = statements.select(filter);
      assert.equal(
        page.sql,
        `SELECT ${columns} FROM ${q("Items")} WHERE ${q("Name")} = ${p(0)} AND ${live} ORDER BY ${q("Name")} DESC, ${q("ID")} ASC LIMIT ${p(1)} OFFSET ${p(2)}`,
      );
      assert.deepEqual(page.parameters, ["A", 10, 20]);
      const other = statements.select(new FilterBuilder(Item).where("name").equal("B").offset(40).limit(50).build());
      assert.equal(other.sql.replace(" ORDER BY", "").split(" LIMIT ")[1], page.sql.split(" LIMIT ")[1]);
    });

    it("renders the WHERE once for the count and the page of one read", () => {
      const filter = new FilterBuilder(Item).where("id").greater(3).limit(5).build();
      const where = statements.where(filter);
      const count = statements.count(filter, where);
      const page = statements.select(filter, where);
      assert.equal(count.sql, `SELECT COUNT(*) FROM ${q("Items")}${where.sql}`);
      assert.deepEqual(count.parameters, [3]);
      assert.ok(page.sql.includes(where.sql));
      assert.deepEqual(page.parameters, [3, 5, 0]);
    });

    it("gives each addWhere only its own names, after the values bound before it", () => {
      const filter = new FilterBuilder(Item).where("id").equal(1).build();
      filter.addWhere("Name <> :excluded", { excluded: "x" });
      const rendered = statements.where(filter);
      assert.equal(rendered.sql, ` WHERE ${q("ID")} = ${p(0)} AND (Name <> ${p(1)}) AND ${live}`);
      assert.deepEqual(rendered.parameters, [1, "x"]);
    });

    it("deletes the children of a cascading relation and counts those of a blocking one, by the parent's key", () => {
      assert.deepEqual(
        statements.relations.map((r) => r.sql).sort(),
        [
          `DELETE FROM ${q("Parts")} WHERE ${q("ItemID")} = ${p(0)}`,
          `SELECT COUNT(*) FROM ${q("Notes")} WHERE ${q("ItemID")} = ${p(0)}`,
        ].sort(),
      );
    });
  });
}

describe("packed reads by key", () => {
  @Table("Files")
  class StoredFile {
    @PrimaryKey @Column("ID", Type.int32) id = 0;
    @Column("Content", Type.blob) content: Uint8Array = new Uint8Array(0);
  }
  @Table("Counters")
  class Counter {
    @PrimaryKey @Column("ID", Type.int32) id = 0;
    @Column("Total", Type.int64) total = 0n;
  }

  it("are left out for an entity with a blob column, whose value JSON cannot hold", () => {
    assert.equal(statementsOf(EntityMapping.of(StoredFile), new SqliteDialect()).selectById(1).packedSql, undefined);
  });

  it("are left out for an entity whose integers are read exactly, which JSON would round", () => {
    assert.equal(statementsOf(EntityMapping.of(Counter), new SqliteDialect()).selectById(1).packedSql, undefined);
  });
});
