import assert from "node:assert/strict";
import { it } from "node:test";
import { Context, DatabaseError, type Database } from "tenon";
import { Company, Gadget } from "../orm/fixtures.js";
import type { TestDatabase } from "../orm/harness.js";

/** A server engine's test database that can open extra pools of a given size. */
export interface PooledTestDatabase extends TestDatabase {
  /** A new pool on the same schema or database. */
  openDatabase(options?: { poolSize?: number; statementTimeout?: number }): Database;
}

/** What differs between the server engines in the connection-fault and pool tests. */
export interface PooledEngine {
  /** The engine's DatabaseError text for a lost connection. */
  readonly lostConnection: RegExp;
  /** What the error for a missing GadgetsID sequence must quote. */
  readonly missingSequenceText: string;
  /** The SQL that answers the server's id of the session's connection. */
  readonly connectionIdSql: string;
  /** Kills a server connection by id and waits until it is gone. */
  kill(id: unknown): Promise<void>;
  /** A pool pointed at 127.0.0.1:1, database `nowhere`, user `tenon`, password `s3cret`, where nothing listens. */
  openUnreachable(): Database;
}

async function newCompany(context: Context, name: string): Promise<Company> {
  const company = await context.createEntity(Company);
  company.name = name;
  await context.insert(company);
  return company;
}

/**
 * The connection-fault, sequence and pool tests, written once for PostgreSQL and MariaDB. Call it inside
 * the engine's describe, after its `before` opened the database that `db` answers.
 */
export function pooledEngineSuite(engine: PooledEngine, db: () => PooledTestDatabase): void {
  const lostConnection = (error: unknown): boolean => error instanceof DatabaseError && engine.lostConnection.test(error.message);
  const kill = (id: unknown): Promise<void> => engine.kill(id);
  async function connectionOf(context: Context): Promise<unknown> {
    return (await context.query(engine.connectionIdSql))[0][0];
  }

  it("an unreachable server fails the first statement with a DatabaseError naming host and database, never the password", async () => {
    const database = engine.openUnreachable();
    try {
      await using context = new Context(database);
      await assert.rejects(context.query("SELECT 1"), (error: unknown) => {
        assert.ok(error instanceof DatabaseError);
        assert.match(error.message, /cannot connect to 127\.0\.0\.1:1\/nowhere/);
        assert.doesNotMatch(error.message, /s3cret/);
        return true;
      });
    } finally {
      await database.close();
    }
  });

  it("a statement on a connection the server killed fails with a DatabaseError, and the pool recovers", async () => {
    const database = db().openDatabase({ poolSize: 1 });
    {
      await using context = new Context(database);
      await newCompany(context, "Before the kill");
      await kill(await connectionOf(context));
      await assert.rejects(context.selectCount(Company), lostConnection);
      await assert.rejects(context.query("SELECT 1"), lostConnection, "the session's connection stays failed");
    }
    await using next = new Context(database);
    const company = await newCompany(next, "After the kill");
    assert.equal((await next.get(Company, company.id)).name, "After the kill");
  });

  it("a transaction cut off by a killed connection leaves none of its writes, and the next context works", async () => {
    const database = db().openDatabase({ poolSize: 1 });
    const names = ["Cut off 1", "Cut off 2"];
    {
      await using context = new Context(database);
      await assert.rejects(
        context.transaction(async () => {
          await newCompany(context, names[0]);
          await kill(await connectionOf(context));
          await newCompany(context, names[1]);
        }),
        lostConnection,
      );
    }
    assert.equal((await db().rows("SELECT ID FROM Companies WHERE Name IN (?, ?)", names)).length, 0);
    await using next = new Context(database);
    await next.transaction(async () => {
      await newCompany(next, "Committed after the fault");
    });
    assert.equal((await db().rows("SELECT ID FROM Companies WHERE Name = ?", ["Committed after the fault"])).length, 1);
  });

  it("an idle pooled connection the server killed is replaced for the next context", async () => {
    const database = db().openDatabase({ poolSize: 1 });
    let id: unknown;
    {
      await using context = new Context(database);
      id = await connectionOf(context);
    }
    await kill(id);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await using next = new Context(database);
    assert.notEqual(await connectionOf(next), id);
    assert.ok((await newCompany(next, "On a new connection")).id > 0);
  });

  it("a missing sequence is reported by name, with the statement that creates it", async () => {
    await db().exec("DROP SEQUENCE GadgetsID");
    try {
      await using context = new Context(db().database);
      await assert.rejects(
        context.createEntity(Gadget),
        (error: unknown) => error instanceof DatabaseError && error.message.includes(engine.missingSequenceText),
      );
    } finally {
      await db().exec("CREATE SEQUENCE GadgetsID");
    }
  });

  it("keys come from the sequence, which the service reads but never creates", async () => {
    await db().exec("ALTER SEQUENCE CompaniesID RESTART WITH 5000");
    await using context = new Context(db().database);
    assert.equal((await newCompany(context, "From the sequence")).id, 5000);
    assert.equal(await context.nextId(Company), 5001);
  });

  it("a pool never lends more connections than its size; a waiting context gets one when another is disposed", async () => {
    const database = db().openDatabase({ poolSize: 2 });
    const first = new Context(database);
    const second = new Context(database);
    const ids = new Set([await connectionOf(first), await connectionOf(second)]);
    assert.equal(ids.size, 2);
    const third = new Context(database);
    let answered = false;
    const waiting = connectionOf(third).then((id) => {
      answered = true;
      return id;
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(answered, false, "the third context waits for a connection");
    await first.dispose();
    assert.ok(ids.has(await waiting), "it gets the connection the first context gave back");
    await second.dispose();
    await third.dispose();
  });

  it("a context that runs no statement takes no connection", async () => {
    const database = db().openDatabase({ poolSize: 1 });
    const idle = new Context(database);
    await using working = new Context(database);
    assert.ok((await newCompany(working, "No connection held by the idle context")).id > 0);
    await idle.dispose();
  });

  it("closing the database closes connections of contexts never disposed, whose next statement then fails", async () => {
    const database = db().openDatabase({ poolSize: 2 });
    const forgotten = new Context(database);
    await connectionOf(forgotten);
    await database.close();
    await assert.rejects(forgotten.query("SELECT 1"), DatabaseError);
    await assert.rejects(
      new Context(database).query("SELECT 1"),
      (error: unknown) => error instanceof DatabaseError && /closed/.test(error.message),
    );
  });
}
