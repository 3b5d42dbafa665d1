import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Column, Context, PrimaryKey, Sequence, Table, Type } from "tenon";
import { SqliteDatabase } from "tenon/sqlite";

@Table("Tickets")
@Sequence("TicketsID")
class Ticket {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Title", Type.string) title = "";
}

describe("SQLite keys without sequences (SPEC.md 2.8 rule 1)", () => {
  let directory: string;
  before(() => {
    directory = mkdtempSync(join(tmpdir(), "tenon-seq-"));
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  function open(file: string, name?: string): SqliteDatabase {
    const database = new SqliteDatabase({ filename: join(directory, file), name });
    database.exec("CREATE TABLE IF NOT EXISTS Tickets (ID INTEGER PRIMARY KEY, Title TEXT NOT NULL)");
    return database;
  }

  it("the first key of an empty table is 1 and the next is the highest key plus one", async () => {
    const database = open("a.sqlite");
    await using context = new Context(database);
    assert.equal(await context.nextId(Ticket), 1);
    database.exec("INSERT INTO Tickets (ID, Title) VALUES (41, 'by hand')");
    assert.equal(await context.nextId(Ticket), 42);
    await database.close();
  });

  it("a key handed out but not yet inserted is not handed out again on the same connection name", async () => {
    const database = open("b.sqlite");
    await using context = new Context(database);
    const first = await context.createEntity(Ticket);
    const second = await context.createEntity(Ticket);
    assert.equal(first.id, 1);
    assert.equal(second.id, 2);
    second.title = "second";
    await context.insert(second);
    first.title = "first";
    await context.insert(first);
    assert.equal(await context.nextId(Ticket), 3);
    await database.close();
  });

  it("two databases opened under different connection names on one file can hand out the same key", async () => {
    const a = open("c.sqlite", "one");
    const b = open("c.sqlite", "two");
    await using contextA = new Context(a);
    await using contextB = new Context(b);
    assert.equal(await contextA.nextId(Ticket), 1);
    assert.equal(await contextB.nextId(Ticket), 1, "the documented limit: sequences are per connection name");
    await a.close();
    await b.close();
  });
});
