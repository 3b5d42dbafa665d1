// Type-level tests: every `@ts-expect-error` below must be an error, or the build (and so `npm test`) fails.
// They prove that a wrong pairing of field type and declared column type does not compile.
import assert from "node:assert/strict";
import { it } from "node:test";
import { Column, CreatedAt, CreatedBy, DetailColumn, Lazy, LazyList, PrimaryKey, Table, Type, VersionColumn } from "tenon";

@Table("Other")
class Other {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
}

@Table("Pairings")
export class Pairings {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  // @ts-expect-error a string column on a number field
  @Column("A", Type.string) a = 0;
  // @ts-expect-error a nullable column on a field that cannot hold null
  @Column("B", Type.string.orNull) b = "";
  // @ts-expect-error int64 columns are bigints
  @Column("C", Type.int64) c = 0;
  // @ts-expect-error a primary key is a number
  @PrimaryKey @Column("D", Type.string) d = "";
  // @ts-expect-error a version is a number
  @VersionColumn @Column("E", Type.string) e = "";
  // @ts-expect-error @CreatedAt needs Date | null
  @CreatedAt @Column("F", Type.string.orNull) f: string | null = null;
  // @ts-expect-error @CreatedBy needs a string
  @CreatedBy @Column("G", Type.int32) g = 0;
  // @ts-expect-error a lazy column holds a Lazy of its target
  @Column(
    "H",
    Type.lazy(() => Other),
  )
  h = 0;
  // @ts-expect-error a detail column holds a LazyList
  @DetailColumn("ID", "PairingID", () => Other) i: Other[] = [];
  @Column(
    "J",
    Type.lazy(() => Other),
  )
  j = new Lazy<Other>();
  @DetailColumn("ID", "PairingID", () => Other) k = new LazyList<Other>();
  @Column("L", Type.decimal(10, 2)) l = "0.00";
  @Column("M", Type.date.orNull) m: Date | null = null;
}

it("matching field and column types compile (the mismatches above are compile errors)", () => {
  assert.equal(new Pairings().l, "0.00");
});
