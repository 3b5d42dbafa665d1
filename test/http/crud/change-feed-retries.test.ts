// The HTTP writer of an entity with @ChangeFeed retries a safe transient failure more often than the default
// (changeFeedRetryPolicy), since such writes contend for the change counter at COMMIT; other entities keep the
// default's three retries. On a real SQLite file, with a before-insert event that fails the first attempts.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  ChangeFeed,
  ChangeLog,
  Column,
  Context,
  PrimaryKey,
  Schema,
  Sequence,
  Table,
  TransientDatabaseError,
  Type,
  VersionColumn,
  changeFeedRetryPolicy,
  defaultRetryPolicy,
} from "tenon";
import { HttpContext, HttpEntityWriter } from "tenon/http";
import { SqliteDatabase } from "tenon/sqlite";

@Table("FedNotes")
@Sequence("FedNotesID")
@ChangeFeed()
class FedNote {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Text", Type.varchar(50)) text = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

@Table("PlainNotes")
@Sequence("PlainNotesID")
class PlainNote {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Text", Type.varchar(50)) text = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

const directory = mkdtempSync(join(tmpdir(), "tenon-feed-retries-"));
const database = new SqliteDatabase({ filename: join(directory, "notes.sqlite") });

/** The rows an SQL query answers, through a session of its own. */
async function rowsOf(sql: string): Promise<unknown[][]> {
  await using context = new Context(database);
  return context.query(sql);
}

before(async () => {
  await Schema.apply(database, [FedNote, PlainNote], { changeFeed: true });
});
after(async () => {
  await database.close();
  rmSync(directory, { recursive: true, force: true });
});

test("the policies say it: a change feed's writers retry 8 times, others 3", () => {
  assert.equal(changeFeedRetryPolicy.retries, 8);
  assert.equal(defaultRetryPolicy.retries, 3);
});

test("a writer of an entity with @ChangeFeed outlasts five conflicts in a row: the row and its change record are written once", async () => {
  const before = await new ChangeLog(database).read({ after: 0, limit: 10_000 });
  let attempts = 0;
  {
    await using context = new HttpContext(database);
    const writer = new HttpEntityWriter(FedNote, context);
    writer.onBeforeInsert = () => {
      attempts++;
      if (attempts <= 5) throw new TransientDatabaseError("certification failure (test)", "conflict", true, false);
    };
    await writer.insert({ text: "fed after five conflicts" });
  }
  assert.equal(attempts, 6);
  const rows = await rowsOf("SELECT Text FROM FedNotes WHERE Text = 'fed after five conflicts'");
  assert.equal(rows.length, 1);
  const records = (await new ChangeLog(database).read({ after: 0, limit: 10_000 })).slice(before.length);
  assert.equal(records.length, 1, "one change record, none of the failed attempts");
  assert.equal(records[0].action, "insert");
});

test("a writer of an entity without a change feed gives up after the default three retries: nothing is written", async () => {
  let attempts = 0;
  {
    await using context = new HttpContext(database);
    const writer = new HttpEntityWriter(PlainNote, context);
    writer.onBeforeInsert = () => {
      attempts++;
      if (attempts <= 5) throw new TransientDatabaseError("certification failure (test)", "conflict", true, false);
    };
    await assert.rejects(writer.insert({ text: "plain after five conflicts" }), TransientDatabaseError);
  }
  assert.equal(attempts, 4);
  assert.equal((await rowsOf("SELECT Text FROM PlainNotes")).length, 0);
});

test("a writer's own retry setting wins over the change feed's policy", async () => {
  let attempts = 0;
  {
    await using context = new HttpContext(database);
    const writer = new HttpEntityWriter(FedNote, context);
    writer.retry = 1;
    writer.onBeforeInsert = () => {
      attempts++;
      throw new TransientDatabaseError("certification failure (test)", "conflict", true, false);
    };
    await assert.rejects(writer.insert({ text: "never" }), TransientDatabaseError);
  }
  assert.equal(attempts, 2);
});
