import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { DatabaseReadiness } from "../../../src/http/crud/database-readiness.js";
import { SqliteDatabase } from "../../../src/engines/sqlite/sqlite-database.js";
import { PostgresDatabase } from "../../../src/engines/postgres/postgres-database.js";
import { ask, started } from "../http-test-client.js";

class Ctx {}

/** A port nothing listens on: bound by the OS, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe("DatabaseReadiness", () => {
  const directory = mkdtempSync(join(tmpdir(), "tenon-readiness-"));
  after(() => rmSync(directory, { recursive: true, force: true }));

  test("ready answers ok when the SQLite file answers a statement", async () => {
    const database = new SqliteDatabase({ filename: join(directory, "ready.sqlite") });
    const server = await started(Ctx, (s) => {
      s.allowAnonymous = true;
      s.balancerRoutes = true;
      s.readiness = new DatabaseReadiness(database);
    });
    try {
      const answer = await ask(server.port, "/ready");
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.json, { status: "ok" });
    } finally {
      await server.stop();
      await database.close();
    }
  });

  test("ready answers 503 when the PostgreSQL server it points at refuses connections, and live stays ok", async () => {
    const database = new PostgresDatabase({
      host: "127.0.0.1",
      port: await closedPort(),
      user: "postgres",
      database: "test",
      connectTimeout: 1000,
    });
    const server = await started(Ctx, (s) => {
      s.allowAnonymous = true;
      s.balancerRoutes = true;
      s.readiness = new DatabaseReadiness(database);
    });
    try {
      const answer = await ask(server.port, "/ready");
      assert.equal(answer.status, 503);
      assert.deepEqual(answer.json, { status: 503, message: "Not ready: the readiness check failed." });
      assert.equal((await ask(server.port, "/live")).status, 200);
    } finally {
      await server.stop();
      await database.close();
    }
  });
});
