// Load with reconciliation (docs/reliability.md), written once for every engine: concurrent HTTP clients
// insert, update and delete through the demo for a fixed time; afterwards the rows match the log of
// acknowledged writes exactly. A few seconds per engine in `npm test`; TENON_LONG=1 runs a minute with more clients.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { DemoEngine } from "../demo/demo-engines.js";
import { startDemo } from "../demo/demo-process.js";
import { loadRowsOf, reconcile } from "../support/reconcile.js";
import { demoToken, runWriteLoad } from "../support/write-load.js";

const long = process.env.TENON_LONG === "1";
const durationMs = long ? 60_000 : 3_000;
const clients = long ? 16 : 6;

async function loadAndReconcile(engine: DemoEngine): Promise<void> {
  const database = await engine.open();
  const demo = await startDemo({ ...database.env, DEMO_RESET: "1" });
  try {
    const baseUrl = `http://127.0.0.1:${demo.port}/api`;
    // At least ten writes per client whatever the machine's load, so the size checks below never depend on speed.
    const log = await runWriteLoad({ baseUrl, token: await demoToken(baseUrl), durationMs, clients, minWritesPerClient: 10 });
    const result = reconcile(log, loadRowsOf(await database.rows(log.rowsSql)));
    const perSecond = Math.round((result.acknowledged / log.durationMs) * 1000);
    console.log(
      `${engine.name}: ${clients} clients, ${log.durationMs} ms: ${log.writes.length} writes, ${result.acknowledged} acknowledged ` +
        `(${perSecond}/s), ${result.refused} refused, ${result.inDoubt} in doubt; lost ${result.lost.length}, ` +
        `phantom ${result.phantom.length}, mismatched ${result.mismatched.length}`,
    );
    assert.deepEqual(
      { lost: result.lost, phantom: result.phantom, mismatched: result.mismatched },
      { lost: [], phantom: [], mismatched: [] },
    );
    assert.ok(result.acknowledged > clients * 5, `the load wrote (${result.acknowledged} acknowledged writes)`);
    for (const operation of ["insert", "update", "delete"]) {
      assert.ok(
        log.writes.some((write) => write.operation === operation && write.outcome === "acknowledged"),
        `some ${operation} was acknowledged`,
      );
    }
    // Without a fault every write gets an answer, and no client touches another's rows: nothing is refused.
    assert.equal(result.inDoubt, 0, "no write in doubt without a fault");
    assert.deepEqual(
      log.writes.filter((write) => write.outcome !== "acknowledged").map((write) => `${write.operation} ${write.record}: ${write.status}`),
      [],
    );
  } finally {
    await demo.stop();
    await database.close();
  }
}

/** Defines the load-with-reconciliation test of one engine. */
export function defineLoadReconciliation(engine: DemoEngine): void {
  describe(`load with reconciliation on ${engine.name}`, () => {
    test("the rows match the log of acknowledged writes: nothing lost, nothing refused present, no version skipped", async () => {
      await loadAndReconcile(engine);
    });
  });
}
