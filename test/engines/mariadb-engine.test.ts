import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Context, DatabaseError } from "tenon";
import { MariaDbDatabase } from "tenon/mariadb";
import { Company, Gadget } from "../orm/fixtures.js";
import { reportUnreachable } from "../orm/engine-availability.js";
import { mariaDbHarness, mariaDbUnreachable, mariaDbUrl, openMariaDb, type MariaDbTestDatabase } from "../orm/harness-mariadb.js";
import { createSchema } from "../orm/schema.js";

const lostConnection = (error: unknown): boolean => error instanceof DatabaseError && /MariaDB: the connection to the server was lost/.test(error.message);

async function newCompany(context: Context, name: string): Promise<Company> {
  const company = await context.createEntity(Company);
  company.name = name;
  await context.insert(company);
  return company;
}

const reason = await mariaDbUnreachable();
if (reason !== undefined) reportUnreachable("MariaDB", reason, "fault, pool and time-zone suite");
else {
  describe("MariaDB: connection faults, pooling and time zones", () => {
    let db: MariaDbTestDatabase;
    before(async () => {
      db = await openMariaDb();
      await createSchema(mariaDbHarness, db);
    });
    after(async () => db.close());

    /** Kills a server connection and waits (up to 10 s) until it is gone. */
    async function kill(id: unknown): Promise<void> {
      await db.exec(`KILL CONNECTION ${Number(id)}`);
      for (let i = 0; i < 100; i++) {
        if ((await db.rows("SELECT ID FROM information_schema.PROCESSLIST WHERE ID = ?", [id])).length === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.fail(`connection ${String(id)} is still there`);
    }

    async function connectionOf(context: Context): Promise<unknown> {
      return (await context.query("SELECT CONNECTION_ID()"))[0][0];
    }

    it("a statement on a killed connection fails with a DatabaseError, and the pool recovers", async () => {
      const database = db.openDatabase({ poolSize: 1 });
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
      const database = db.openDatabase({ poolSize: 1 });
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
      assert.equal((await db.rows("SELECT ID FROM Companies WHERE Name IN (?, ?)", names)).length, 0);
      await using next = new Context(database);
      await next.transaction(async () => {
        await newCompany(next, "Committed after the fault");
      });
      assert.equal((await db.rows("SELECT ID FROM Companies WHERE Name = ?", ["Committed after the fault"])).length, 1);
    });

    it("an idle pooled connection that was killed is replaced for the next context", async () => {
      const database = db.openDatabase({ poolSize: 1 });
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
      await db.exec("DROP SEQUENCE GadgetsID");
      try {
        await using context = new Context(db.database);
        await assert.rejects(context.createEntity(Gadget), (error: unknown) => error instanceof DatabaseError && error.message.includes("CREATE SEQUENCE `GadgetsID`"));
      } finally {
        await db.exec("CREATE SEQUENCE GadgetsID");
      }
    });

    it("keys come from the sequence, which the service reads but never creates", async () => {
      await db.exec("ALTER SEQUENCE CompaniesID RESTART WITH 5000");
      await using context = new Context(db.database);
      assert.equal((await newCompany(context, "From the sequence")).id, 5000);
      assert.equal(await context.nextId(Company), 5001);
    });

    it("a pool never lends more connections than its size; a waiting context gets one when another is disposed", async () => {
      const database = db.openDatabase({ poolSize: 2 });
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

    it("closing the database closes connections of contexts never disposed, whose next statement then fails", async () => {
      const database = db.openDatabase({ poolSize: 2 });
      const forgotten = new Context(database);
      await connectionOf(forgotten);
      await database.close();
      await assert.rejects(forgotten.query("SELECT 1"), DatabaseError);
      await assert.rejects(new Context(database).query("SELECT 1"), (error: unknown) => error instanceof DatabaseError && /closed/.test(error.message));
    });

    it("the session time zone is UTC and dates are stored as UTC wall-clock time, whatever the process time zone", async () => {
      const previous = process.env.TZ;
      process.env.TZ = "America/St_Johns";
      try {
        const at = new Date("2024-03-10T06:30:00.250Z");
        await using context = new Context(db.database);
        assert.equal((await context.query("SELECT @@session.time_zone"))[0][0], "+00:00");
        const gadget = await context.createEntity(Gadget);
        gadget.at = at;
        await context.insert(gadget);
        await db.direct.query("SET time_zone = '+09:30'");
        const text = await db.direct.query({ sql: "SELECT CAST(At AS CHAR) AS text FROM Gadgets WHERE ID = ?", rowsAsArray: true }, [gadget.id]);
        assert.deepEqual(text, [["2024-03-10 06:30:00.250"]]);
        await using reader = new Context(db.database);
        assert.equal((await reader.get(Gadget, gadget.id)).at?.toISOString(), at.toISOString());
        const now = (await reader.query("SELECT CAST(NOW(3) AS CHAR)"))[0][0] as string;
        const skew = Math.abs(new Date(`${now.replace(" ", "T")}Z`).getTime() - Date.now());
        assert.ok(skew < 10 * 60_000, `NOW() on a Tenon connection is UTC (${now})`);
      } finally {
        await db.direct.query("SET time_zone = DEFAULT");
        if (previous === undefined) delete process.env.TZ;
        else process.env.TZ = previous;
      }
    });

    it("an unreachable server fails the first statement with a DatabaseError naming host and database, never the password", async () => {
      const database = new MariaDbDatabase({ connectionString: "mariadb://tenon:s3cret@127.0.0.1:1/nowhere", connectTimeout: 3000 });
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

    it("options given as fields override the connection string", async () => {
      const url = new URL(mariaDbUrl);
      const database = new MariaDbDatabase({ connectionString: "mariadb://nobody@192.0.2.1:9/none", host: url.hostname, port: Number(url.port || 3306), user: decodeURIComponent(url.username), database: db.name });
      try {
        await using context = new Context(database);
        assert.equal((await context.query("SELECT DATABASE()"))[0][0], db.name);
      } finally {
        await database.close();
      }
    });
  });
}
