// The reload after an update (what the CRUD writer answers a PUT or PATCH with): after a plain update it reads only
// the columns the entity does not hold already, and the entity it leaves is the one a full read of the row gives.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, describe, it } from "node:test";
import {
  Column,
  Context,
  CreatedAt,
  CreatedBy,
  DeletedAt,
  DeletedBy,
  PrimaryKey,
  Schema,
  Sequence,
  Table,
  Type,
  UpdatedAt,
  UpdatedBy,
  VersionColumn,
} from "tenon";
import { SqliteDatabase } from "tenon/sqlite";
import { observeStatements } from "../../src/observation/statement-observer.js";

@Table("Notes")
@Sequence("NotesID")
class Note {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Title", Type.varchar(50)) title = "";
  @Column("Body", Type.string.orNull) body: string | null = null;
  @Column("Amount", Type.float.orNull) amount: number | null = null;
  @Column("Price", Type.decimal(10, 2).orNull) price: string | null = null;
  @Column("Done", Type.boolean) done = false;
  @Column("DueAt", Type.date.orNull) dueAt: Date | null = null;
  @CreatedAt @Column("CreatedAt", Type.date.orNull) createdAt: Date | null = null;
  @CreatedBy @Column("CreatedBy", Type.string) createdBy = "";
  @UpdatedAt @Column("UpdatedAt", Type.date.orNull) updatedAt: Date | null = null;
  @UpdatedBy @Column("UpdatedBy", Type.string) updatedBy = "";
  @DeletedAt @Column("DeletedAt", Type.date.orNull) deletedAt: Date | null = null;
  @DeletedBy @Column("DeletedBy", Type.string) deletedBy = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** Every own field of an entity, dates as their time, for comparison. */
function fieldsOf(entity: object): unknown {
  return Object.entries(entity).map(([name, value]) => [name, value instanceof Date ? { time: value.getTime() } : value]);
}

describe("the reload after an update", () => {
  let directory = "";
  let database: SqliteDatabase;
  const statements: string[] = [];
  let stop: (() => void) | undefined;

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), "tenon-reload-after-update-"));
    database = new SqliteDatabase({ filename: join(directory, "notes.sqlite") });
    await Schema.apply(database, [Note]);
  });
  afterEach(() => {
    stop?.();
    stop = undefined;
    statements.length = 0;
  });
  after(async () => {
    await database.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const session = (user: string): Context => {
    const context = new Context(database);
    context.onGetCurrentUser = () => user;
    return context;
  };
  const observe = (): void => {
    stop?.();
    stop = observeStatements({
      statementStarted: (sql) => void statements.push(sql),
      statementEnded: () => undefined,
      retried: () => undefined,
    });
  };

  /** A note inserted by "creator", then a new instance of it (as a JSON body makes one) updated by "editor". */
  async function updatedNote(change: (note: Note) => void): Promise<{ context: Context; note: Note }> {
    await using creator = session("creator");
    const stored = Object.assign(new Note(), {
      title: "first",
      body: "text",
      amount: 1.5,
      price: "2.50",
      dueAt: new Date(Date.UTC(2024, 1, 29)),
    });
    await creator.insert(stored);
    const context = session("editor");
    const note = Object.assign(new Note(), { id: stored.id, versionId: stored.versionId });
    change(note);
    observe();
    await context.update(note);
    return { context, note };
  }

  it("after a plain update reads only what the update left to the database and what the engine may store otherwise", async () => {
    const { context, note } = await updatedNote((n) => Object.assign(n, { title: "second", amount: 3.25, price: "4.10" }));
    await context.refreshWrittenNow(note);
    await context.dispose();
    const reload = statements.at(-1) ?? "";
    assert.match(reload, /^SELECT /);
    for (const column of ["CreatedAt", "CreatedBy", "DeletedAt", "DeletedBy", "Price", "Done"])
      assert.ok(reload.includes(`"${column}"`), `${column}: ${reload}`);
    for (const column of ["Title", "Body", "Amount", "DueAt", "UpdatedAt", "UpdatedBy", "VersionID"])
      assert.ok(!reload.includes(`"${column}"`), `${column}: ${reload}`);
  });

  it("leaves the entity a full read of the row gives, nulls and values the body left out included", async () => {
    const changes: ((note: Note) => void)[] = [
      (n) =>
        Object.assign(n, {
          title: "second",
          body: "other",
          amount: 0.1,
          price: "7.5",
          done: true,
          dueAt: new Date(Date.UTC(2030, 0, 1, 12, 0, 0, 7)),
        }),
      (n) => Object.assign(n, { title: "", body: undefined, amount: -0, price: null, dueAt: null }),
      (n) => Object.assign(n, { title: "caf\u00e9 \ud83d\ude00", body: "", amount: 1e21 }),
    ];
    for (const change of changes) {
      const { context, note } = await updatedNote(change);
      await context.refreshWrittenNow(note);
      await context.dispose();
      await using reader = session("reader");
      const read = await reader.get(Note, note.id);
      assert.deepEqual(fieldsOf(note), fieldsOf(read));
      assert.equal(note.createdBy, "creator");
      assert.equal(note.updatedBy, "editor");
      assert.equal(note.versionId, 1, "the version the update raised");
    }
  });

  it("reads every column again of an entity that another write or no update wrote", async () => {
    const { context, note } = await updatedNote((n) => Object.assign(n, { title: "second" }));
    const other = await context.get(Note, note.id);
    await context.refreshWrittenNow(other);
    await context.dispose();
    assert.ok((statements.at(-1) ?? "").includes('"Title"'), statements.at(-1));
  });
});
