// Faults of the log file on the demo (SQLite): the file removed while the server runs, and its path taken
// by something that cannot be written. Requests are answered as always while it lasts, and logging comes
// back by itself. (A writer that throws, rejects or never settles is covered on the bare server in
// test/http/logging/logging-server.test.ts.)
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { test } from "node:test";
import { sqliteDemoEngine } from "../demo/demo-engines.js";
import { startDemo } from "../demo/demo-process.js";

async function health(port: number, marker: string): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}/api/health?marker=${marker}`);
  await response.text();
  return response.status;
}

/** Waits until `check` holds, at most `ms`. */
async function eventually(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

const logged = (file: string, marker: string) => (): boolean =>
  existsSync(file) && readFileSync(file, "utf8").includes(`"value":"${marker}`);

test("a log file removed or unwritable costs no request, and logging resumes in a new file by itself", async () => {
  const database = await sqliteDemoEngine.open();
  const demo = await startDemo(database.env);
  const file = database.logFile;
  try {
    assert.equal(await health(demo.port, "before"), 200);
    assert.ok(await eventually(logged(file, "before"), 5000), "the log is written");

    rmSync(file);
    const statuses: number[] = [];
    const until = Date.now() + 1500;
    for (let i = 0; Date.now() < until; i++) statuses.push(await health(demo.port, `removed${i}`));
    assert.ok(await eventually(logged(file, "removed"), 5000), "the file is created again and the requests after the removal are in it");

    rmSync(file);
    mkdirSync(file);
    const blockedUntil = Date.now() + 1500;
    for (let i = 0; Date.now() < blockedUntil; i++) statuses.push(await health(demo.port, `blocked${i}`));
    rmSync(file, { recursive: true });
    for (let i = 0; i < 20 || !(await eventually(logged(file, "after"), 100)); i++) {
      statuses.push(await health(demo.port, "after"));
      if (i > 200) break;
    }
    assert.ok(logged(file, "after")(), "logging resumed once the path could be written again");
    assert.deepEqual([...new Set(statuses)], [200], "every request was answered while the log failed");
  } finally {
    await demo.stop();
    await database.close();
  }
});
