import assert from "node:assert/strict";
import { describe, it, test } from "node:test";
import { Column, EntityMapping, JsonIgnore, JsonName, Lazy, MappingError, PrimaryKey, Table, Type } from "tenon";

describe("JSON decorators at mapping time", () => {
  it("a JSON decorator on a field that is not mapped is refused", () => {
    @Table("T")
    class Unmapped {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @JsonIgnore cache = "";
    }
    assert.throws(
      () => EntityMapping.of(Unmapped),
      (error: unknown) => error instanceof MappingError && /Unmapped/.test(error.message) && /cache/.test(error.message),
    );
  });

  it("a Lazy field whose <name>Id clashes with another field's JSON name is refused", () => {
    @Table("T")
    class Clash {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @Column(
        "ParentID",
        Type.lazy(() => Clash),
      )
      parent = new Lazy<Clash>();
      @Column("ParentRef", Type.int32) parentId = 0;
    }
    assert.throws(
      () => EntityMapping.of(Clash),
      (error: unknown) => error instanceof MappingError && /parentId/.test(error.message),
    );
  });
});

describe("@JsonName at mapping time", () => {
  const refused = (entityClass: abstract new () => object, ...parts: RegExp[]): void => {
    assert.throws(
      () => EntityMapping.of(entityClass as new () => object),
      (error: unknown) => error instanceof MappingError && parts.every((part) => part.test(error.message)),
    );
  };

  test("two properties with one wire name are a mapping error naming both", () => {
    @Table("T")
    class Twice {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @JsonName("label") @Column("Name", Type.string) name = "";
      @Column("Label", Type.string) label = "";
    }
    refused(Twice, /Twice/, /name/, /label/);
    @Table("T")
    class BothRenamed {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @JsonName("x") @Column("A", Type.string) a = "";
      @JsonName("x") @Column("B", Type.string) b = "";
    }
    refused(BothRenamed, /BothRenamed/, /"x"/);
  });

  test("a renamed Lazy whose <name>Id is another property's wire name is refused", () => {
    @Table("T")
    class LazyClash {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @JsonName("owner")
      @Column(
        "OwnerID",
        Type.lazy(() => LazyClash),
      )
      parent = new Lazy<LazyClash>();
      @Column("Other", Type.int32) ownerId = 0;
    }
    refused(LazyClash, /ownerId/);
  });

  test("an empty name, a second @JsonName, __proto__ and a name on an unmapped field are refused", () => {
    @Table("T")
    class Empty {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @JsonName("") @Column("A", Type.string) a = "";
    }
    refused(Empty, /Empty/, /non-empty/);
    @Table("T")
    class Double {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @JsonName("b") @JsonName("c") @Column("A", Type.string) a = "";
    }
    refused(Double, /more than once/);
    @Table("T")
    class Proto {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @JsonName("__proto__") @Column("A", Type.string) a = "";
    }
    refused(Proto, /__proto__/);
    @Table("T")
    class NotMapped {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @JsonName("c") cache = "";
    }
    refused(NotMapped, /cache/);
  });
});
