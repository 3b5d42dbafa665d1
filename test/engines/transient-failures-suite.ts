import assert from "node:assert/strict";
import { it } from "node:test";
import { Context, DatabaseError, TransientDatabaseError, type TransientKind } from "tenon";
import { Company } from "../orm/fixtures.js";
import type { PooledEngine, PooledTestDatabase } from "./pooled-engine-suite.js";

/** What the transient-failure tests need of an engine besides the pooled-engine suite's description. */
export interface TransientEngine extends PooledEngine {
  /** A query that sleeps `seconds` seconds on the server. */
  sleepSql(seconds: number): string;
  /** An UPDATE of Companies row `:id` that sleeps `seconds` seconds before it writes Name = :name. */
  slowUpdateSql(seconds: number): string;
  /**
   * How a transaction reads as SERIALIZABLE does: a statement sent first in it (PostgreSQL: SET TRANSACTION
   * ISOLATION LEVEL SERIALIZABLE), or undefined, and what ends its reads (MariaDB, where the level cannot
   * change inside a transaction: the shared locks that SERIALIZABLE takes, LOCK IN SHARE MODE).
   */
  readonly serializable: { readonly first?: string; readonly readSuffix: string };
}

/** A promise that resolves when `count` parties have arrived. */
function barrier(count: number): () => Promise<void> {
  let arrived = 0;
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return () => {
    if (++arrived >= count) open();
    return opened;
  };
}

function isTransient(kind: TransientKind, retrySafe: boolean): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof TransientDatabaseError, `a TransientDatabaseError, not ${String(error)}`);
    assert.equal(error.kind, kind, error.message);
    assert.equal(error.retrySafe, retrySafe, error.message);
    return true;
  };
}

async function insertCompany(context: Context, name: string): Promise<number> {
  const company = await context.createEntity(Company);
  company.name = name;
  await context.insert(company);
  return company.id;
}

/**
 * Transient failures induced for real on a server engine: deadlocks, serialization conflicts, connections
 * killed mid-transaction and mid-statement, statement timeouts and cancels. Call it inside the engine's
 * describe, after its `before` opened the database that `db` answers.
 */
export function transientFailuresSuite(engine: TransientEngine, db: () => PooledTestDatabase): void {
  async function connectionOf(context: Context): Promise<unknown> {
    return (await context.query(engine.connectionIdSql))[0][0];
  }

  /** Two transactions that take rows a and b in opposite orders, the second step after both took their first. */
  function crossing(first: number, second: number, name: string, meet: () => Promise<void>, context: Context): () => Promise<void> {
    return async () => {
      await context.execute("UPDATE Companies SET Name = :name WHERE ID = :id", { name, id: first });
      await meet();
      await context.execute("UPDATE Companies SET Name = :name WHERE ID = :id", { name, id: second });
    };
  }

  it("two transactions that deadlock: one fails with a conflict that is safe to retry, and nothing of it stays", async () => {
    const database = db().openDatabase({ poolSize: 3 });
    await using setup = new Context(database);
    const a = await insertCompany(setup, "Deadlock a");
    const b = await insertCompany(setup, "Deadlock b");
    await using left = new Context(database);
    await using right = new Context(database);
    const meet = barrier(2);
    const results = await Promise.allSettled([
      left.transaction(crossing(a, b, "left", meet, left)),
      right.transaction(crossing(b, a, "right", meet, right)),
    ]);
    const failed = results.filter((result) => result.status === "rejected");
    assert.equal(failed.length, 1, "exactly one of the two is chosen as the victim");
    isTransient("conflict", true)((failed[0] as PromiseRejectedResult).reason);
    const winner = results[0].status === "fulfilled" ? "left" : "right";
    const rows = await db().rows("SELECT Name AS name FROM Companies WHERE ID IN (?, ?)", [a, b]);
    assert.deepEqual(
      rows.map((row) => row.name),
      [winner, winner],
    );
  });

  it("with retry, both deadlocking transactions commit: the victim runs again and wins after the other", async () => {
    const database = db().openDatabase({ poolSize: 3 });
    await using setup = new Context(database);
    const a = await insertCompany(setup, "Retried a");
    const b = await insertCompany(setup, "Retried b");
    await using left = new Context(database);
    await using right = new Context(database);
    const meet = barrier(2);
    let runs = 0;
    const counted = (work: () => Promise<void>) => () => {
      runs++;
      return work();
    };
    await Promise.all([
      left.transaction(counted(crossing(a, b, "left", meet, left)), { retry: true }),
      right.transaction(counted(crossing(b, a, "right", meet, right)), { retry: true }),
    ]);
    assert.ok(runs >= 3, `the victim ran again (${runs} runs)`);
    const names = (await db().rows("SELECT Name AS name FROM Companies WHERE ID IN (?, ?)", [a, b])).map((row) => row.name);
    assert.equal(new Set(names).size, 1, `one transaction's writes are all there, after the other's: ${names}`);
  });

  it("two SERIALIZABLE transactions that read what the other writes: one fails with a retryable conflict, retry commits both", async () => {
    const database = db().openDatabase({ poolSize: 2 });
    const tag = `Skew ${Date.now()}`;
    const meet = barrier(2);
    const work = (context: Context, name: string) => async () => {
      if (engine.serializable.first !== undefined) await context.execute(engine.serializable.first);
      await context.query(`SELECT COUNT(*) FROM Companies WHERE Email = :tag${engine.serializable.readSuffix}`, { tag });
      await meet();
      const company = await context.createEntity(Company);
      company.name = name;
      company.email = tag;
      await context.insert(company);
      await context.query(`SELECT COUNT(*) FROM Companies WHERE Email = :tag${engine.serializable.readSuffix}`, { tag });
    };
    await using left = new Context(database);
    await using right = new Context(database);
    const results = await Promise.allSettled([left.transaction(work(left, "left")), right.transaction(work(right, "right"))]);
    const failed = results.filter((result) => result.status === "rejected");
    assert.equal(failed.length, 1, "one of the two is refused");
    isTransient("conflict", true)((failed[0] as PromiseRejectedResult).reason);
    assert.equal((await db().rows("SELECT ID FROM Companies WHERE Email = ?", [tag])).length, 1, "the refused one left no row");
  });

  it("a connection killed mid-transaction: with retry the unit runs again on a new connection, and its writes are there once", async () => {
    const database = db().openDatabase({ poolSize: 1 });
    await using context = new Context(database);
    const names = [`Killed ${Date.now()} 1`, `Killed ${Date.now()} 2`];
    const connections: unknown[] = [];
    await context.transaction(
      async () => {
        await insertCompany(context, names[0]);
        connections.push(await connectionOf(context));
        if (connections.length === 1) await engine.kill(connections[0]);
        await insertCompany(context, names[1]);
      },
      { retry: true },
    );
    assert.equal(connections.length, 2, "the unit ran twice");
    assert.notEqual(connections[1], connections[0], "the second run had a new connection from the pool");
    for (const name of names) {
      assert.equal((await db().rows("SELECT ID FROM Companies WHERE Name = ?", [name])).length, 1, `${name} is there once`);
    }
  });

  it("a connection killed mid-transaction without retry: a retry-safe failure, no partial write, and the pool replaces it", async () => {
    const database = db().openDatabase({ poolSize: 1 });
    const context = new Context(database);
    const name = `Not kept ${Date.now()}`;
    await assert.rejects(
      context.transaction(async () => {
        await insertCompany(context, name);
        await engine.kill(await connectionOf(context));
        await context.query("SELECT 1");
      }),
      isTransient("connection", true),
    );
    assert.equal((await db().rows("SELECT ID FROM Companies WHERE Name = ?", [name])).length, 0);
    await context.dispose();
    await using next = new Context(database);
    assert.ok((await insertCompany(next, `${name} after`)) > 0, "the pool replaced the killed connection");
  });

  it("a connection lost while a single self-committing write runs is in doubt: not safe to retry", async () => {
    const database = db().openDatabase({ poolSize: 2 });
    await using setup = new Context(database);
    const id = await insertCompany(setup, "In doubt");
    await using context = new Context(database);
    const connection = await connectionOf(context);
    const killing = new Promise((resolve) => setTimeout(resolve, 300)).then(() => engine.kill(connection));
    await assert.rejects(context.execute(engine.slowUpdateSql(3), { id, name: "In doubt, written?" }), isTransient("connection", false));
    await killing;
  });

  it("a statement longer than statementTimeout is stopped by the server: a timeout, and the session goes on", async () => {
    const database = db().openDatabase({ poolSize: 1, statementTimeout: 300 });
    await using context = new Context(database);
    const started = Date.now();
    await assert.rejects(context.query(engine.sleepSql(60)), isTransient("timeout", false));
    assert.ok(Date.now() - started < 45_000, `stopped after ${Date.now() - started} ms`);
    assert.deepEqual(
      (await context.query("SELECT 1")).map((row) => Number(row[0])),
      [1],
    );
  });

  it("cancel() stops the statement the session runs (its caller has gone), and the connection serves again", async () => {
    const database = db().openDatabase({ poolSize: 1 });
    await using context = new Context(database);
    const before = await connectionOf(context);
    const started = Date.now();
    const sleeping = context.query(engine.sleepSql(60));
    setTimeout(() => void context.cancel(), 300);
    await assert.rejects(sleeping, isTransient("timeout", false));
    assert.ok(Date.now() - started < 45_000, `stopped after ${Date.now() - started} ms`);
    assert.equal(await connectionOf(context), before, "the same connection serves the next statement");
    await context.cancel(); // nothing running: nothing happens
    assert.deepEqual(
      (await context.query("SELECT 1")).map((row) => Number(row[0])),
      [1],
    );
  });

  it("a permanent failure is a DatabaseError that is not transient, and is never retried", async () => {
    await using context = new Context(db().database);
    let runs = 0;
    await assert.rejects(
      context.transaction(
        async () => {
          runs++;
          await context.query("SELECT NoSuchColumn FROM Companies");
        },
        { retry: 5 },
      ),
      (error: unknown) => error instanceof DatabaseError && !(error instanceof TransientDatabaseError),
    );
    assert.equal(runs, 1);
  });
}
