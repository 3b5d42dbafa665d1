import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Context } from "tenon";
import { PostgresDatabase } from "tenon/postgres";
import { Gadget } from "../../orm/fixtures.js";
import { reportUnreachable } from "../../orm/engine-availability.js";
import { openPostgres, postgresHarness, postgresUnreachable, postgresUrl, type PostgresTestDatabase } from "../../orm/harness-postgres.js";
import { createSchema } from "../../orm/schema.js";
import { pooledEngineSuite } from "../pooled-engine-suite.js";
import { transientFailuresSuite } from "../transient-failures-suite.js";

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

    const engine = {
      lostConnection: /PostgreSQL: the connection to the server was lost/,
      missingSequenceText: 'CREATE SEQUENCE "gadgetsid"',
      connectionIdSql: "SELECT pg_backend_pid()",
      kill: terminate,
      openUnreachable: () =>
        new PostgresDatabase({ connectionString: "postgres://tenon:s3cret@127.0.0.1:1/nowhere", connectTimeout: 3000 }),
      sleepSql: (seconds: number) => `SELECT pg_sleep(${seconds})`,
      slowUpdateSql: (seconds: number) => `UPDATE Companies SET Name = :name WHERE ID = :id AND pg_sleep(${seconds}) IS NOT NULL`,
      serializable: { first: "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE", readSuffix: "" },
    };
    pooledEngineSuite(engine, () => db);
    transientFailuresSuite(engine, () => db);

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
        const utcText = await db.rows(
          "SELECT to_char(At AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS') AS text FROM Gadgets WHERE ID = ?",
          [gadget.id],
        );
        assert.equal(utcText[0].text, "2024-03-10 06:30:00.250");
        await using reader = new Context(db.database);
        await reader.execute("SET TIME ZONE 'Pacific/Chatham'");
        assert.equal((await reader.get(Gadget, gadget.id)).at?.toISOString(), at.toISOString());
      } finally {
        if (previous === undefined) delete process.env.TZ;
        else process.env.TZ = previous;
      }
    });

    it("options given as fields override the connection string, and the schema option sets the search path", async () => {
      const url = new URL(postgresUrl);
      const database = new PostgresDatabase({
        connectionString: "postgres://nobody@192.0.2.1:9/none",
        host: url.hostname,
        port: Number(url.port || 5432),
        user: decodeURIComponent(url.username),
        database: url.pathname.slice(1),
        schema: db.schema,
      });
      try {
        await using context = new Context(database);
        assert.equal((await context.query("SELECT current_schema()"))[0][0], db.schema);
      } finally {
        await database.close();
      }
    });
  });
}
