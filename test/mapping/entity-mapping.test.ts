import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  Column,
  CreatedAt,
  CreatedBy,
  DeletedAt,
  DeletedBy,
  DetailColumn,
  EntityMapping,
  Join,
  JoinKind,
  LazyList,
  MappingError,
  NotFilterable,
  PrimaryKey,
  Relation,
  Sequence,
  Table,
  TenonError,
  Type,
  UpdatedBy,
  VersionColumn,
  WhereClause,
  WhereClauseParameter,
} from "tenon";

function refused(entityClass: abstract new () => object, pattern: RegExp): void {
  assert.throws(
    () => EntityMapping.of(entityClass),
    (error: unknown) => {
      assert.ok(error instanceof MappingError, `expected MappingError, got ${String(error)}`);
      assert.ok(error instanceof TenonError);
      assert.match((error as Error).message, pattern);
      return true;
    },
  );
}

describe("mapping an entity class", () => {
  it("a valid entity maps its table, key, version, sequence and columns in declaration order", () => {
    @Table("Things")
    @Sequence("ThingsID")
    class Thing {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @Column("Name", Type.string) name = "";
      @NotFilterable @Column("Secret", Type.string) secret = "";
      @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
    }
    const mapping = EntityMapping.of(Thing);
    assert.equal(mapping.tableName, "Things");
    assert.equal(mapping.sequenceName, "ThingsID");
    assert.equal(mapping.primaryKey.property, "id");
    assert.equal(mapping.versionColumn?.columnName, "VersionID");
    assert.deepEqual(
      mapping.columns.map((c) => c.property),
      ["id", "name", "secret", "versionId"],
    );
    assert.equal(mapping.column("secret")?.filterable, false);
    assert.equal(mapping.column("name")?.filterable, true);
    assert.equal(EntityMapping.of(Thing), mapping, "the mapping is built once");
  });

  it("a class without @Table is refused, naming the class", () => {
    class NoTable {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
    }
    refused(NoTable, /NoTable: the class has no @Table/);
  });

  it("a class with no decorators at all is refused", () => {
    class Plain {}
    refused(Plain, /Plain: the class is not an entity/);
  });

  it("an entity without a primary key is refused", () => {
    @Table("T")
    class NoKey {
      @Column("Name", Type.string) name = "";
    }
    refused(NoKey, /NoKey: the class has no @PrimaryKey/);
  });

  it("an entity with two primary keys is refused, naming both fields", () => {
    @Table("T")
    class TwoKeys {
      @PrimaryKey @Column("A", Type.int32) a = 0;
      @PrimaryKey @Column("B", Type.int32) b = 0;
    }
    refused(TwoKeys, /TwoKeys: @PrimaryKey is applied to 2 fields \(a, b\)/);
  });

  it("a nullable primary key column is refused", () => {
    @Table("T")
    class NullableKey {
      // The field type is a number, but the declared column accepts null: only the mapping can see it.
      @PrimaryKey @Column("ID", Type.int32.orNull as unknown as typeof Type.int32) id = 0;
    }
    refused(NullableKey, /NullableKey: field id: the primary key must be declared Type.int32/);
  });

  it("a change-tracking date that is not a nullable date column is refused", () => {
    @Table("T")
    class NotNullableAt {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @CreatedAt @Column("CreatedAt", Type.date) createdAt: Date = new Date();
    }
    refused(NotNullableAt, /NotNullableAt: field createdAt: @CreatedAt needs a nullable date column/);
  });

  it("a change-tracking user that is not a string column is refused", () => {
    @Table("T")
    class NumberBy {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      // Declared through a cast so that only the run-time check can catch it.
      @UpdatedBy @Column("UpdatedBy", Type.int32 as unknown as typeof Type.string) updatedBy = "";
    }
    refused(NumberBy, /NumberBy: field updatedBy: @UpdatedBy needs a string column, not int32/);
  });

  it("two decorators of one kind on one entity are refused", () => {
    @Table("T")
    class TwoCreated {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @CreatedBy @Column("A", Type.string) a = "";
      @CreatedBy @Column("B", Type.string) b = "";
    }
    refused(TwoCreated, /TwoCreated: @CreatedBy is applied more than once/);
    @Table("T")
    @Table("U")
    class TwoTables {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
    }
    refused(TwoTables, /TwoTables: @Table is applied more than once/);
    @Table("T")
    class TwoVersions {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @VersionColumn @Column("V1", Type.int32) v1 = 0;
      @VersionColumn @Column("V2", Type.int32) v2 = 0;
    }
    refused(TwoVersions, /TwoVersions: @VersionColumn is applied more than once/);
  });

  it("@DeletedBy without @DeletedAt is refused, and a lone @CreatedBy is allowed", () => {
    @Table("T")
    class LoneDeletedBy {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @DeletedBy @Column("DeletedBy", Type.string) deletedBy = "";
    }
    refused(LoneDeletedBy, /LoneDeletedBy: @DeletedBy requires @DeletedAt/);
    @Table("T")
    class LoneCreatedBy {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @CreatedBy @Column("CreatedBy", Type.string) createdBy = "";
    }
    assert.equal(EntityMapping.of(LoneCreatedBy).audit.createdBy?.property, "createdBy");
  });

  it("@DeletedAt makes the entity soft-deleting", () => {
    @Table("T")
    class Soft {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @DeletedAt @Column("DeletedAt", Type.date.orNull) deletedAt: Date | null = null;
    }
    assert.equal(EntityMapping.of(Soft).isSoftDelete, true);
  });

  it("a joined column whose alias matches no @Join is refused", () => {
    @Table("Employees")
    @Join(JoinKind.Left, "Companies", "C", "CompanyID", "ID")
    class BadAlias {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @Column("X", "Name", Type.string) companyName = "";
    }
    refused(BadAlias, /BadAlias: field companyName: @Column\("X", "Name"\) names the alias "X", which matches no @Join/);
  });

  it("the three @Join overloads declare simple, aliased and chained joins", () => {
    @Table("Employees")
    @Join(JoinKind.Inner, "Companies", "CompanyID", "ID")
    @Join(JoinKind.Left, "Employees", "Boss", "BossID", "ID")
    @Join(JoinKind.Right, "Companies", "BossCompany", "Boss", "CompanyID", "ID")
    class Chained {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @Column("Companies", "Name", Type.string) company = "";
      @Column("Boss", "LastName", Type.string.orNull) boss: string | null = null;
      @Column("BossCompany", "Name", Type.string.orNull) bossCompany: string | null = null;
    }
    const mapping = EntityMapping.of(Chained);
    // Class decorators run bottom-up; the mapping keeps the joins in the order they are written.
    assert.deepEqual(
      mapping.joins.map((j) => [j.kind, j.table, j.alias, j.sourceTableOrAlias, j.sourceColumn, j.targetColumn]),
      [
        ["INNER", "Companies", "Companies", undefined, "CompanyID", "ID"],
        ["LEFT", "Employees", "Boss", undefined, "BossID", "ID"],
        ["RIGHT", "Companies", "BossCompany", "Boss", "CompanyID", "ID"],
      ],
    );
    assert.equal(mapping.isJoinEntity, true);
  });

  it("a @WhereClauseParameter of a refused type is refused", () => {
    @Table("T")
    @WhereClause("A = :a")
    @WhereClauseParameter("a", { not: "a constant" } as unknown as string)
    class BadParameter {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
    }
    refused(BadParameter, /BadParameter: @WhereClauseParameter\("a"\) has a value of a refused type \(Object\)/);
    @Table("T")
    @WhereClause("A = :a AND B = :b AND C = :c AND D = :d AND E = :e")
    @WhereClauseParameter("a", "text")
    @WhereClauseParameter("b", 42)
    @WhereClauseParameter("c", 9007199254740993n)
    @WhereClauseParameter("d", true)
    @WhereClauseParameter("e", new Date(0))
    class GoodParameters {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
    }
    assert.equal(EntityMapping.of(GoodParameters).whereClauseParameters.length, 5);
  });

  it("a detail column must name a column of the entity", () => {
    @Table("Children")
    class Child {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
    }
    @Table("Parents")
    @Relation("Children", "ParentID", true)
    class Parent {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @DetailColumn("Missing", "ParentID", () => Child) children = new LazyList<Child>();
    }
    refused(Parent, /Parent: field children: @DetailColumn\("Missing", \.\.\.\) names no column/);
  });

  it("a mapped #private field is reached through the decorator's access", () => {
    @Table("T")
    class Hidden {
      @PrimaryKey @Column("ID", Type.int32) #id = 7;
      readonly probe = (): number => this.#id;
    }
    const mapping = EntityMapping.of(Hidden);
    const entity = new Hidden();
    assert.equal(mapping.primaryKey.property, "id");
    assert.equal(mapping.primaryKey.get(entity), 7);
    mapping.primaryKey.set(entity, 8);
    assert.equal(entity.probe(), 8);
  });
});
