import {
  Column,
  CreatedAt,
  CreatedBy,
  DetailColumn,
  JsonIgnore,
  JsonIgnoreDeserialize,
  JsonIgnoreSerialize,
  Lazy,
  LazyList,
  NotFilterable,
  PrimaryKey,
  Sequence,
  Table,
  Type,
  UpdatedAt,
  UpdatedBy,
  VersionColumn,
} from "tenon";
import { type EngineHarness, sequenceDdl, type TestDatabase } from "../orm/harness.js";

/** An author: every JSON decorator on a column, on a `Lazy` and on a `LazyList`, and change-tracking columns. */
@Table("Authors")
@Sequence("AuthorsID")
export class Author {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Name", Type.varchar(80)) name = "";
  @JsonIgnore @Column("Secret", Type.string) secret = "";
  @JsonIgnoreSerialize @Column("Password", Type.string) password = "";
  @JsonIgnoreDeserialize @Column("Score", Type.int32) score = 0;
  @NotFilterable @Column("Note", Type.string.orNull) note: string | null = null;
  @Column(
    "FavoriteID",
    Type.lazy(() => Book),
  )
  favorite = new Lazy<Book>();
  @JsonIgnore
  @Column(
    "EditorID",
    Type.lazy(() => Author),
  )
  editor = new Lazy<Author>();
  @JsonIgnoreDeserialize
  @Column(
    "AgentID",
    Type.lazy(() => Author),
  )
  agent = new Lazy<Author>();
  @DetailColumn("ID", "AuthorID", () => Book) books = new LazyList<Book>();
  @JsonIgnoreSerialize @DetailColumn("ID", "AuthorID", () => Book) drafts = new LazyList<Book>();
  @JsonIgnore @DetailColumn("ID", "AuthorID", () => Book) archive = new LazyList<Book>();
  @CreatedAt @Column("CreatedAt", Type.date.orNull) createdAt: Date | null = null;
  @CreatedBy @Column("CreatedBy", Type.string) createdBy = "";
  @UpdatedAt @Column("UpdatedAt", Type.date.orNull) updatedAt: Date | null = null;
  @UpdatedBy @Column("UpdatedBy", Type.string) updatedBy = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** A book of an author (the detail of `Author.books`, and the target of `Author.favorite`: a cycle). */
@Table("Books")
@Sequence("BooksID")
export class Book {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Title", Type.string) title = "";
  @Column(
    "AuthorID",
    Type.lazy(() => Author),
  )
  author = new Lazy<Author>();
  @Column("Price", Type.decimal(10, 2)) price = "0.00";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** Every column type, for the JSON type rules. */
@Table("Samples")
@Sequence("SamplesID")
export class Sample {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Big", Type.int64.orNull) big: bigint | null = null;
  @Column("Ratio", Type.float.orNull) ratio: number | null = null;
  @Column("Amount", Type.decimal(18, 4).orNull) amount: string | null = null;
  @Column("Flag", Type.boolean.orNull) flag: boolean | null = null;
  @Column("At", Type.date.orNull) at: Date | null = null;
  @Column("Data", Type.blob.orNull) data: Uint8Array | null = null;
  @Column("Label", Type.string) label = "";
  @Column("Count", Type.int32) count = 0;
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** Creates the tables (and sequences) of this file's entities. */
export async function createJsonSchema(harness: EngineHarness, db: TestDatabase): Promise<void> {
  const t = harness.types;
  const statements = [
    `CREATE TABLE Authors (ID ${t.int32} NOT NULL PRIMARY KEY, Name ${t.text} NOT NULL, Secret ${t.text} NOT NULL, Password ${t.text} NOT NULL,
      Score ${t.int32} NOT NULL, Note ${t.text}, FavoriteID ${t.int32}, EditorID ${t.int32}, AgentID ${t.int32}, CreatedAt ${t.timestamp},
      CreatedBy ${t.text}, UpdatedAt ${t.timestamp}, UpdatedBy ${t.text}, VersionID ${t.int32} NOT NULL)`,
    `CREATE TABLE Books (ID ${t.int32} NOT NULL PRIMARY KEY, Title ${t.text} NOT NULL, AuthorID ${t.int32}, Price ${t.decimal(10, 2)} NOT NULL,
      VersionID ${t.int32} NOT NULL)`,
    `CREATE TABLE Samples (ID ${t.int32} NOT NULL PRIMARY KEY, Big ${t.int64}, Ratio ${t.float}, Amount ${t.decimal(18, 4)}, Flag ${t.boolean},
      At ${t.timestamp}, Data ${t.blob}, Label ${t.text} NOT NULL, Count ${t.int32} NOT NULL, VersionID ${t.int32} NOT NULL)`,
  ];
  if (harness.hasSequences) for (const name of ["AuthorsID", "BooksID", "SamplesID"]) statements.push(sequenceDdl(harness, name));
  for (const sql of statements) await db.exec(sql);
}
