import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AfterUpdate, BeforeInsert, Column, EntityMapping, InsertEvent, MappingError, PrimaryKey, Table, Type } from "tenon";

/** Private event methods would never be called; Tenon refuses them loudly when the class is mapped. */
describe("event decorators at mapping time", () => {
  it("a #private method marked as an event is a MappingError naming the class and the method", () => {
    @Table("T")
    class SecretHook {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      // biome-ignore lint/correctness/noUnusedPrivateClassMembers: the test is that a decorated private member is refused or reached.
      @BeforeInsert #stamp(): void {}
    }
    assert.throws(
      () => EntityMapping.of(SecretHook),
      (error: unknown) =>
        error instanceof MappingError &&
        /SecretHook/.test(error.message) &&
        /#stamp/.test(error.message) &&
        /BeforeInsert/.test(error.message),
    );
  });

  it("a static method marked as an event is refused", () => {
    @Table("T")
    class StaticHook {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @AfterUpdate static after(): void {}
    }
    assert.throws(
      () => EntityMapping.of(StaticHook),
      (error: unknown) => error instanceof MappingError && /StaticHook/.test(error.message),
    );
  });

  it("two event classes for one kind of write are refused", () => {
    class One {}
    class Two {}
    @Table("T")
    @InsertEvent(One)
    @InsertEvent(Two)
    class TwoClasses {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
    }
    assert.throws(
      () => EntityMapping.of(TwoClasses),
      (error: unknown) => error instanceof MappingError && /InsertEvent/.test(error.message),
    );
  });

  it("a public marked method is accepted", () => {
    @Table("T")
    class PublicHook {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @BeforeInsert stamp(): void {}
    }
    assert.equal(EntityMapping.of(PublicHook).name, "PublicHook");
  });
});
