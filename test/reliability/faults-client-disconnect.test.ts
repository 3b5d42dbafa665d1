// Faults: clients that disconnect mid-request (a body cut short) and mid-response (a large answer abandoned
// after its first bytes), on the demo (SQLite). The server writes nothing of a cut body, keeps serving, and
// logs the abandoned answer.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { test } from "node:test";
import { openDirectSqlite } from "../support/direct-sqlite.js";
import { sqliteDemoEngine } from "../demo/demo-engines.js";
import { startDemo } from "../demo/demo-process.js";
import { demoToken } from "../support/write-load.js";

/** Opens a socket, sends `head` and `body`, reads until `readBytes` arrived (0: nothing), then destroys it. */
function sendAndDrop(port: number, head: string, body: string, readBytes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    let received = 0;
    socket.on("error", () => resolve(received));
    socket.on("connect", () => {
      socket.write(head + body);
      if (readBytes === 0) setTimeout(() => socket.destroy(), 200);
    });
    socket.on("data", (chunk: Buffer) => {
      received += chunk.length;
      if (received >= readBytes) {
        socket.destroy();
        resolve(received);
      }
    });
    socket.on("close", () => resolve(received));
    setTimeout(() => reject(new Error("the exchange did not end")), 10_000).unref();
  });
}

test("a body cut short writes nothing, an answer abandoned midway breaks nothing, and the server serves on", async () => {
  const database = await sqliteDemoEngine.open();
  const demo = await startDemo(database.env);
  try {
    const baseUrl = `http://127.0.0.1:${demo.port}/api`;
    const token = await demoToken(baseUrl);
    const body = JSON.stringify({ name: "Cut short" });
    const head = `POST /api/companies HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    for (let cut = 0; cut < body.length; cut += 4) await sendAndDrop(demo.port, head, body.slice(0, cut), 0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(await database.rows("SELECT ID FROM Companies WHERE Name = 'Cut short'"), [], "no cut body was written");

    // A list of some 3 MB: far more than the socket buffers hold, so the client leaves mid-answer.
    const file = database.env.DEMO_DB_FILE;
    const direct = openDirectSqlite(file);
    const insert = direct.prepare(
      // Rows of the seed's tenant, the one the demo's users work for.
      "INSERT INTO Companies (ID, TenantID, Region, Name, CreatedBy, UpdatedBy, DeletedBy, VersionID) VALUES (?, 'north', 'EU', ?, '', '', '', 0)",
    );
    direct.transaction(() => {
      for (let i = 0; i < 10_000; i++) insert.run(1_000_000 + i, `Bulk company ${i} ${"x".repeat(60)}`);
    })();
    direct.close();
    const listHead = `GET /api/companies HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`;
    for (let i = 0; i < 5; i++) assert.ok((await sendAndDrop(demo.port, listHead, "", 1000)) >= 1000);

    const health = await fetch(`${baseUrl}/health`);
    assert.equal(health.status, 200);
    const created = await fetch(`${baseUrl}/companies`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "After the faults" }),
    });
    assert.equal(created.status, 200, await created.text());
    await new Promise((resolve) => setTimeout(resolve, 300));
    const log = readFileSync(database.logFile, "utf8");
    assert.ok((log.match(/"log":"response"/g) ?? []).length >= 5, "the abandoned answers are logged as responses");
  } finally {
    await demo.stop();
    await database.close();
  }
});
