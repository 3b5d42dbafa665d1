import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Column, EntityMapping, JsonIgnore, Lazy, MappingError, PrimaryKey, Table, Type } from "tenon";

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
