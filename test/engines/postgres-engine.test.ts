import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Context, DatabaseError } from "tenon";
import { PostgresDatabase } from "tenon/postgres";
import { Company, Gadget } from "../orm/fixtures.js";
import { reportUnreachable } from "../orm/engine-availability.js";
import { openPostgres, postgresHarness, postgresUnreachable, postgresUrl, type PostgresTestDatabase } from "../orm/harness-postgres.js";
import { createSchema } from "../orm/schema.js";

const lostConnection = (error: unknown): boolean => error instanceof DatabaseError && /PostgreSQL: the connection to the server was lost/.test(error.message);

async function newCompany(context: Context, name: string): Promise<Company> {
  const company = await context.createEntity(Company);
  company.name = name;
  await context.insert(company);
  return company;
}

const reason = await postgresUnreachable();
if (reason !== undefined) reportUnreachable("PostgreSQL", reason, "fault, pool and time-zone suite");
else {
  describe("PostgreSQL: connection faults, pooling and time zones", () => {
    let db: PostgresTestDatabase;
    before(async () => {
      db = await openPostgres();
      await createSchema(postgresHarness, db);
    });
    after(async () => db.close());

    /** Terminates a server backend and waits (up to 10 s) until it is gone. */
    async function terminate(pid: unknown): Promise<void> {
      const rows = await db.rows("SELECT pg_terminate_backend(?, 10000) AS done", [pid]);
      assert.equal(rows[0].done, true);
    }

    async function backendOf(context: Context): Promise<unknown> {
      return (await context.query("SELECT pg_backend_pid()"))[0][0];
    }

    it("a statement on a connection whose backend was terminated fails with a DatabaseError, and the pool recovers", async () => {
      const database = db.openDatabase({ poolSize: 1 });
      {
        await using context = new Context(database);
        await newCompany(context, "Before the kill");
        await terminate(await backendOf(context));
        await assert.rejects(context.selectCount(Company), lostConnection);
        await assert.rejects(context.query("SELECT 1"), lostConnection, "the session's connection stays failed");
      }
      await using next = new Context(database);
      const company = await newCompany(next, "After the kill");
      assert.equal((await next.get(Company, company.id)).name, "After the kill");
    });

    it("a transaction cut off by a terminated backend leaves none of its writes, and the next context works", async () => {
      const database = db.openDatabase({ poolSize: 1 });
      const names = ["Cut off 1", "Cut off 2"];
      {
        await using context = new Context(database);
        await assert.rejects(
          context.transaction(async () => {
            await newCompany(context, names[0]);
            await terminate(await backendOf(context));
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

    it("an idle pooled connection whose backend was terminated is replaced for the next context", async () => {
      const database = db.openDatabase({ poolSize: 1 });
      let pid: unknown;
      {
        await using context = new Context(database);
        pid = await backendOf(context);
      }
      await terminate(pid);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await using next = new Context(database);
      assert.notEqual(await backendOf(next), pid);
      assert.ok((await newCompany(next, "On a new backend")).id > 0);
    });

    it("a missing sequence is reported by name, with the statement that creates it", async () => {
      await db.exec("DROP SEQUENCE GadgetsID");
      try {
        await using context = new Context(db.database);
        await assert.rejects(context.createEntity(Gadget), (error: unknown) => error instanceof DatabaseError && error.message.includes('CREATE SEQUENCE "gadgetsid"'));
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
      const pids = new Set([await backendOf(first), await backendOf(second)]);
      assert.equal(pids.size, 2);
      const third = new Context(database);
      let answered = false;
      const waiting = backendOf(third).then((pid) => {
        answered = true;
        return pid;
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(answered, false, "the third context waits for a connection");
      await first.dispose();
      assert.ok(pids.has(await waiting), "it gets the connection the first context gave back");
      await second.dispose();
      await third.dispose();
    });

    it("a context that runs no statement takes no connection", async () => {
      const database = db.openDatabase({ poolSize: 1 });
      const idle = new Context(database);
      await using working = new Context(database);
      assert.ok((await newCompany(working, "No connection held by the idle context")).id > 0);
      await idle.dispose();
    });

    it("closing the database closes connections of contexts never disposed, whose next statement then fails", async () => {
      const database = db.openDatabase({ poolSize: 2 });
      const forgotten = new Context(database);
      await backendOf(forgotten);
      await database.close();
      await assert.rejects(forgotten.query("SELECT 1"), DatabaseError);
      await assert.rejects(new Context(database).query("SELECT 1"), (error: unknown) => error instanceof DatabaseError && /closed/.test(error.message));
    });

    it("dates are the same instants whatever the session and the process time zones are", async () => {
      const previous = process.env.TZ;
      process.env.TZ = "America/St_Johns";
      try {
        const at = new Date("2024-03-10T06:30:00.250Z");
        await using context = new Context(db.database);
        await context.execute("SET TIME ZONE 'Asia/Kathmandu'");
        const gadget = await context.createEntity(Gadget);
        gadget.at = at;
        await context.insert(gadget);
        const utcText = await db.rows("SELECT to_char(At AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS') AS text FROM Gadgets WHERE ID = ?", [gadget.id]);
        assert.equal(utcText[0].text, "2024-03-10 06:30:00.250");
        await using reader = new Context(db.database);
        await reader.execute("SET TIME ZONE 'Pacific/Chatham'");
        assert.equal((await reader.get(Gadget, gadget.id)).at?.toISOString(), at.toISOString());
      } finally {
        if (previous === undefined) delete process.env.TZ;
        else process.env.TZ = previous;
      }
    });

    it("an unreachable server fails the first statement with a DatabaseError naming host and database, never the password", async () => {
      const database = new PostgresDatabase({ connectionString: "postgres://tenon:s3cret@127.0.0.1:1/nowhere", connectTimeout: 3000 });
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

    it("options given as fields override the connection string, and the schema option sets the search path", async () => {
      const url = new URL(postgresUrl);
      const database = new PostgresDatabase({ connectionString: "postgres://nobody@192.0.2.1:9/none", host: url.hostname, port: Number(url.port || 5432), user: decodeURIComponent(url.username), database: url.pathname.slice(1), schema: db.schema });
      try {
        await using context = new Context(database);
        assert.equal((await context.query("SELECT current_schema()"))[0][0], db.schema);
      } finally {
        await database.close();
      }
    });
  });
}
