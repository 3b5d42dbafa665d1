import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Context } from "tenon";
import { MariaDbDatabase } from "tenon/mariadb";
import { Gadget } from "../../orm/fixtures.js";
import { reportUnreachable } from "../../orm/engine-availability.js";
import { mariaDbHarness, mariaDbUnreachable, mariaDbUrl, openMariaDb, type MariaDbTestDatabase } from "../../orm/harness-mariadb.js";
import { createSchema } from "../../orm/schema.js";
import { pooledEngineSuite } from "../pooled-engine-suite.js";
import { transientFailuresSuite } from "../transient-failures-suite.js";

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

    const engine = {
      lostConnection: /MariaDB: the connection to the server was lost/,
      missingSequenceText: "CREATE SEQUENCE `GadgetsID`",
      connectionIdSql: "SELECT CONNECTION_ID()",
      kill,
      openUnreachable: () => new MariaDbDatabase({ connectionString: "mariadb://tenon:s3cret@127.0.0.1:1/nowhere", connectTimeout: 3000 }),
      sleepSql: (seconds: number) => `SELECT SLEEP(${seconds})`,
      slowUpdateSql: (seconds: number) => `UPDATE Companies SET Name = :name WHERE ID = :id AND SLEEP(${seconds}) = 0`,
      serializable: { readSuffix: " LOCK IN SHARE MODE" },
    };
    pooledEngineSuite(engine, () => db);
    transientFailuresSuite(engine, () => db);

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
        const text = await db.direct.query({ sql: "SELECT CAST(At AS CHAR) AS text FROM Gadgets WHERE ID = ?", rowsAsArray: true }, [
          gadget.id,
        ]);
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

    it("options given as fields override the connection string", async () => {
      const url = new URL(mariaDbUrl);
      const database = new MariaDbDatabase({
        connectionString: "mariadb://nobody@192.0.2.1:9/none",
        host: url.hostname,
        port: Number(url.port || 3306),
        user: decodeURIComponent(url.username),
        database: db.name,
      });
      try {
        await using context = new Context(database);
        assert.equal((await context.query("SELECT DATABASE()"))[0][0], db.name);
      } finally {
        await database.close();
      }
    });
  });
}
