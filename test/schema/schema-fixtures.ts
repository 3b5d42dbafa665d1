import {
  Column,
  CreatedBy,
  DetailColumn,
  Lazy,
  LazyList,
  PrimaryKey,
  Relation,
  Sequence,
  Table,
  Type,
  UpdatedAt,
  UpdatedBy,
  VersionColumn,
} from "tenon";

/**
 * A maker of widgets: a blocking relation and a detail list point at Widgets.MakerID. Its UpdatedBy is a
 * plain `Type.string`, which INSERT still leaves NULL.
 */
@Table("Makers")
@Sequence("MakersID")
@Relation("Widgets", "MakerID", false)
export class Maker {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Name", Type.varchar(50)) name = "";
  @CreatedBy @Column("CreatedBy", Type.string) createdBy = "";
  @UpdatedAt @Column("UpdatedAt", Type.date.orNull) updatedAt: Date | null = null;
  @UpdatedBy @Column("UpdatedBy", Type.string) updatedBy = "";
  @DetailColumn("ID", "MakerID", () => Widget) widgets = new LazyList<Widget>();
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** Every column type, each as NOT NULL and as nullable, and a `Lazy` reference. */
@Table("Widgets")
@Sequence("WidgetsID")
export class Widget {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column(
    "MakerID",
    Type.lazy(() => Maker),
  )
  maker = new Lazy<Maker>();
  @Column("Count", Type.int32) count = 0;
  @Column("CountOrNull", Type.int32.orNull) countOrNull: number | null = null;
  @Column("Big", Type.int64) big = 0n;
  @Column("BigOrNull", Type.int64.orNull) bigOrNull: bigint | null = null;
  @Column("Ratio", Type.float) ratio = 0;
  @Column("RatioOrNull", Type.float.orNull) ratioOrNull: number | null = null;
  @Column("Amount", Type.decimal(18, 4)) amount = "0.0000";
  @Column("AmountOrNull", Type.decimal(18, 4).orNull) amountOrNull: string | null = null;
  @Column("Wide", Type.decimal(38, 10)) wide = "0.0000000000";
  @Column("Code", Type.varchar(20)) code = "";
  @Column("CodeOrNull", Type.varchar(20).orNull) codeOrNull: string | null = null;
  @Column("Note", Type.string) note = "";
  @Column("Label", Type.string.orNull) label: string | null = null;
  @Column("Flag", Type.boolean) flag = false;
  @Column("FlagOrNull", Type.boolean.orNull) flagOrNull: boolean | null = null;
  @Column("At", Type.date) at = new Date(0);
  @Column("AtOrNull", Type.date.orNull) atOrNull: Date | null = null;
  @Column("Data", Type.blob) data: Uint8Array = new Uint8Array(0);
  @Column("DataOrNull", Type.blob.orNull) dataOrNull: Uint8Array | null = null;
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** A table of its own, with no reference to the others. */
@Table("Tags")
@Sequence("TagsID")
export class Tag {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Name", Type.varchar(30)) name = "";
}

/** The schema under test. */
export const schemaEntities = [Maker, Widget, Tag];

/** Makers without their relation and detail list: with `OldWidget`, nothing indexes Widgets.MakerID. */
@Table("Makers")
@Sequence("MakersID")
export class OldMaker {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Name", Type.varchar(50)) name = "";
  @CreatedBy @Column("CreatedBy", Type.string) createdBy = "";
  @UpdatedAt @Column("UpdatedAt", Type.date.orNull) updatedAt: Date | null = null;
  @UpdatedBy @Column("UpdatedBy", Type.string) updatedBy = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/**
 * Widgets as an older version of the application created them: MakerID a plain nullable integer (so no
 * index), Code wider, Count nullable, Flag text, no Label column; and Note is renamed to Remark afterwards.
 */
@Table("Widgets")
@Sequence("WidgetsID")
export class OldWidget {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("MakerID", Type.int32.orNull) makerId: number | null = null;
  @Column("Count", Type.int32.orNull) count: number | null = null;
  @Column("CountOrNull", Type.int32.orNull) countOrNull: number | null = null;
  @Column("Big", Type.int64) big = 0n;
  @Column("BigOrNull", Type.int64.orNull) bigOrNull: bigint | null = null;
  @Column("Ratio", Type.float) ratio = 0;
  @Column("RatioOrNull", Type.float.orNull) ratioOrNull: number | null = null;
  @Column("Amount", Type.decimal(18, 4)) amount = "0.0000";
  @Column("AmountOrNull", Type.decimal(18, 4).orNull) amountOrNull: string | null = null;
  @Column("Wide", Type.decimal(38, 10)) wide = "0.0000000000";
  @Column("Code", Type.varchar(40)) code = "";
  @Column("CodeOrNull", Type.varchar(20).orNull) codeOrNull: string | null = null;
  @Column("Note", Type.string) note = "";
  @Column("Flag", Type.string) flag = "";
  @Column("FlagOrNull", Type.boolean.orNull) flagOrNull: boolean | null = null;
  @Column("At", Type.date) at = new Date(0);
  @Column("AtOrNull", Type.date.orNull) atOrNull: Date | null = null;
  @Column("Data", Type.blob) data: Uint8Array = new Uint8Array(0);
  @Column("DataOrNull", Type.blob.orNull) dataOrNull: Uint8Array | null = null;
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** The older schema: no Tags table yet. */
export const oldEntities = [OldMaker, OldWidget];

/** A decimal wider than any engine stores exactly. */
@Table("Huge")
export class TooPrecise {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Amount", Type.decimal(1001, 2)) amount = "0.00";
}

/** A scale above the precision. */
@Table("Odd")
export class ScaleAbovePrecision {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Amount", Type.decimal(4, 6)) amount = "0.000000";
}

/** A second mapping of Tags that disagrees about a column. */
@Table("Tags")
export class TagWithLongName {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Name", Type.varchar(300)) name = "";
}

/** Text longer than a MariaDB VARCHAR holds in utf8mb4 (its row limit): fine elsewhere. */
@Table("LongTexts")
export class LongText {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Body", Type.varchar(20000)) body = "";
}
