import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Column, Context, PrimaryKey, Sequence, Table, Type } from "tenon";
import { SqliteDatabase } from "tenon/sqlite";

const run = promisify(execFile);
const writer = fileURLToPath(new URL("./sqlite-key-writer.js", import.meta.url));

@Table("Tickets")
@Sequence("TicketsID")
class Ticket {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Title", Type.string) title = "";
}

describe("SQLite keys from the file's key table (docs/engines.md)", () => {
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

  it("the first key of an empty table is 1, and a table with rows starts after its highest key", async () => {
    const empty = open("a.sqlite");
    await using context = new Context(empty);
    assert.equal(await context.nextId(Ticket), 1);
    await empty.close();
    const filled = open("a2.sqlite");
    filled.exec("INSERT INTO Tickets (ID, Title) VALUES (41, 'by hand')");
    await using other = new Context(filled);
    assert.equal(await other.nextId(Ticket), 42);
    await filled.close();
  });

  it("keys step over ids inserted ahead of them, and an id at the top of int32 does not move them there", async () => {
    const database = open("ahead.sqlite");
    await using context = new Context(database);
    assert.equal(await context.nextId(Ticket), 1);
    database.exec("INSERT INTO Tickets (ID, Title) VALUES (2, 'by hand'), (3, 'by hand'), (2147483647, 'top')");
    assert.equal(await context.nextId(Ticket), 4);
    assert.equal(await context.nextId(Ticket), 5);
    await database.close();
  });

  it("a key handed out but not yet inserted is not handed out again", async () => {
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

  it("two databases opened on one file under different names never hand out the same key", async () => {
    const a = open("c.sqlite", "one");
    const b = open("c.sqlite", "two");
    await using contextA = new Context(a);
    await using contextB = new Context(b);
    // Each reserves a block of 32 keys in the file's key table and hands them out in turn.
    assert.equal(await contextA.nextId(Ticket), 1);
    assert.equal(await contextB.nextId(Ticket), 33);
    assert.equal(await contextA.nextId(Ticket), 2);
    assert.equal(await contextB.nextId(Ticket), 34);
    await a.close();
    await b.close();
  });

  it("a transaction rolled back after creating the key table leaves key drawing working", async () => {
    const database = open("d.sqlite");
    await using context = new Context(database);
    await assert.rejects(
      context.transaction(async () => {
        assert.equal(await context.nextId(Ticket), 1);
        throw new Error("roll back");
      }),
      /roll back/,
    );
    assert.equal(await context.nextId(Ticket), 1);
    await database.close();
  });

  it("a transaction rolled back without drawing a key keeps the block: the next key follows the last one", async () => {
    const database = open("e.sqlite");
    await using context = new Context(database);
    await context.transaction(async () => {
      assert.equal(await context.nextId(Ticket), 1);
    });
    await assert.rejects(
      context.transaction(async () => {
        await context.execute("INSERT INTO Tickets (ID, Title) VALUES (1, 'one')");
        throw new Error("roll back");
      }),
      /roll back/,
    );
    assert.equal(await context.nextId(Ticket), 2);
    // A key drawn inside a transaction that rolls back is not handed out again (nor is a sequence's value).
    await assert.rejects(
      context.transaction(async () => {
        assert.equal(await context.nextId(Ticket), 3);
        throw new Error("roll back");
      }),
      /roll back/,
    );
    assert.equal(await context.nextId(Ticket), 4);
    await database.close();
  });

  it("four processes inserting into one file at once hand out no key twice and lose no write", async () => {
    const file = join(directory, "processes.sqlite");
    open("processes.sqlite").close();
    const perWorker = 120;
    const outputs = await Promise.all(
      [1, 2, 3, 4].map((worker) => run(process.execPath, [writer, file, String(worker), String(perWorker)], { timeout: 60000 })),
    );
    const results = outputs.map((output) => JSON.parse(output.stdout) as { inserted: number[]; duplicates: number });
    const inserted = results.flatMap((result) => result.inserted);
    assert.equal(new Set(inserted).size, inserted.length, "a key was acknowledged to two processes");
    const duplicates = results.reduce((sum, result) => sum + result.duplicates, 0);
    assert.equal(inserted.length + duplicates, 4 * perWorker);
    assert.ok(inserted.length >= 4 * perWorker * 0.9, `only ${inserted.length} rows inserted`);
    const database = new SqliteDatabase({ filename: file });
    await using context = new Context(database);
    const rows = await context.query("SELECT ID FROM Tickets ORDER BY ID");
    assert.deepEqual(
      rows.map((row) => Number(row[0])),
      [...inserted].sort((x, y) => x - y),
      "the table holds exactly the acknowledged rows",
    );
    await database.close();
  });
});
