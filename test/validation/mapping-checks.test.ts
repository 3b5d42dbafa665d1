import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  Column,
  DetailColumn,
  DisplayName,
  Email,
  EntityMapping,
  LazyList,
  MappingError,
  MaxLength,
  MaxValue,
  PrimaryKey,
  Range,
  Regex,
  Required,
  Table,
  Type,
  Validator,
} from "tenon";

/** Misused validation decorators are refused when the class is first mapped, never at run time. */
describe("validation decorators at mapping time", () => {
  it("an invalid @Regex is a MappingError naming the class, the field and the pattern", () => {
    @Table("T")
    class BadPattern {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @Regex("([a-z]+") @Column("Code", Type.string) code = "";
    }
    assert.throws(
      () => EntityMapping.of(BadPattern),
      (error: unknown) =>
        error instanceof MappingError &&
        /BadPattern/.test(error.message) &&
        /code/.test(error.message) &&
        /\(\[a-z\]\+/.test(error.message),
    );
    assert.throws(() => EntityMapping.of(BadPattern), MappingError, "refused again on the next attempt, never cached");
  });

  it("a string rule on a numeric column and a numeric rule on a text column are refused", () => {
    @Table("T")
    class LengthOnNumber {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      // @ts-expect-error: a string rule on a number field does not compile either
      @MaxLength(3) @Column("N", Type.int32) n = 0;
    }
    @Table("T")
    class RangeOnText {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @Range(1, 2) @Column("S", Type.string) s = "";
    }
    @Table("T")
    class EmailOnNumber {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      // @ts-expect-error: a string rule on a number field does not compile either
      @Email() @Column("N", Type.float) n = 0;
    }
    for (const entity of [LengthOnNumber, RangeOnText, EmailOnNumber] as (new () => object)[])
      assert.throws(() => EntityMapping.of(entity), MappingError, entity.name);
  });

  it("a rule on an unmapped field, a detail list or a method is refused", () => {
    @Table("T")
    class OnPlainField {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @Required() plain = "";
    }
    @Table("T")
    class OnDetail {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @Required() @DetailColumn("ID", "ParentID", () => OnDetail) children = new LazyList<OnDetail>();
    }
    for (const entity of [OnPlainField, OnDetail] as (new () => object)[])
      assert.throws(
        () => EntityMapping.of(entity),
        (error: unknown) => error instanceof MappingError && /mapped column fields only/.test(error.message),
        entity.name,
      );
  });

  it("a duplicate rule, a range upside down, a negative length and a non-finite limit are refused", () => {
    @Table("T")
    class Twice {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @MaxLength(3) @MaxLength(4) @Column("S", Type.string) s = "";
    }
    @Table("T")
    class UpsideDown {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @Range(5, 1) @Column("N", Type.int32) n = 0;
    }
    @Table("T")
    class Negative {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @MaxLength(-1) @Column("S", Type.string) s = "";
    }
    @Table("T")
    class Infinite {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @MaxValue(Number.POSITIVE_INFINITY) @Column("N", Type.int32) n = 0;
    }
    @Table("T")
    class TwoNames {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @DisplayName("a") @DisplayName("b") @Column("N", Type.int32) n = 0;
    }
    for (const entity of [Twice, UpsideDown, Negative, Infinite, TwoNames] as (new () => object)[])
      assert.throws(() => EntityMapping.of(entity), MappingError, entity.name);
  });

  it("a static @Validator is refused and an instance one, even #private, is accepted", () => {
    @Table("T")
    class StaticValidator {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @Validator static check(): void {}
    }
    assert.throws(
      () => EntityMapping.of(StaticValidator),
      (error: unknown) => error instanceof MappingError && /StaticValidator/.test(error.message),
    );
    @Table("T")
    class PrivateValidator {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      // biome-ignore lint/correctness/noUnusedPrivateClassMembers: the test is that a decorated private member is refused or reached.
      @Validator #check(): void {}
    }
    assert.equal(EntityMapping.of(PrivateValidator).name, "PrivateValidator");
  });
});
