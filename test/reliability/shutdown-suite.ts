// Issue 17 "Shutdown": SIGTERM to the demo under a load of inserts (companies, and orders with lines in one
// transaction) and reads. Every request either gets its full answer or is refused before it was sent (the
// listener is closed: ECONNREFUSED); none is reset or cut. /api/ready answers 503 while the process drains.
// The process exits 0 within a bound, which it reaches only once every request context was disposed and
// the database closed (a pool with a connection still taken would not close). Afterwards the rows match the
// answers exactly: every answered insert is stored with all its lines, nothing unanswered is. Written once,
// run per engine.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ask, sleep } from "../http/http-test-client.js";
import type { DemoDatabase, DemoEngine } from "../demo/demo-engines.js";
import { startLoad, waitFor, type LoadRequest } from "../demo/demo-load.js";
import { startDemo, type DemoProcess } from "../demo/demo-process.js";

const long = process.env.TENON_LONG === "1";
/** Requests answered before the signal. */
const warmAnswers = long ? 3000 : 300;
const drainDelayMs = 400;
const exitBoundMs = 10000;

/** Defines the shutdown suite on one engine. */
export function defineShutdownSuite(engine: DemoEngine): void {
  describe(`SIGTERM to the demo under load on ${engine.name}`, () => {
    let db: DemoDatabase;
    let demo: DemoProcess;

    before(async () => {
      db = await engine.open();
      demo = await startDemo({ ...db.env, DEMO_RESET: "1", DRAIN_DELAY_MS: String(drainDelayMs) });
    });
    after(async () => {
      await demo?.stop("SIGKILL");
      await db?.close();
    });

    test("in-flight requests finish or are refused unsent, the process exits 0 in bound, and the rows match the answers", async () => {
      const logon = await ask(demo.port, "/api/logon", {
        method: "POST",
        body: JSON.stringify({ username: "editor", password: "editor" }),
      });
      assert.equal(logon.status, 200, logon.text);
      const headers = { Authorization: `Bearer ${(logon.json as { token: string }).token}` };
      const next = (i: number): LoadRequest => {
        switch (i % 4) {
          case 0:
            return {
              method: "POST",
              path: "/api/companies",
              headers,
              body: JSON.stringify({ name: `Shutdown ${i}`, creditLimit: "5.00" }),
            };
          case 1:
            return {
              method: "POST",
              path: "/api/orders",
              headers,
              body: JSON.stringify({
                number: `SD-${i}`,
                companyId: 1,
                lines: [
                  { product: "Anvil", quantity: 2, price: "10.25" },
                  { product: "Rope", quantity: 1, price: "3.50" },
                  { product: "Bird seed", quantity: 5, price: "0.99" },
                ],
              }),
            };
          case 2:
            return { method: "GET", path: "/api/companies/1", headers };
          default:
            return { method: "GET", path: "/api/orders/1", headers };
        }
      };
      const load = startLoad(demo.port, { concurrency: 12, next, keep: true });
      await waitFor(() => load.answered() >= warmAnswers, `${warmAnswers} answers`, 60000);

      // Watch /ready from beside the load: 503 while draining, then refused.
      const readiness: string[] = [];
      let watching = true;
      const watcher = (async () => {
        while (watching) {
          try {
            readiness.push(String((await ask(demo.port, "/api/ready")).status));
          } catch (error) {
            readiness.push((error as NodeJS.ErrnoException).code ?? "error");
          }
          await sleep(25);
        }
      })();
      const begun = Date.now();
      const code = await demo.stop("SIGTERM");
      const took = Date.now() - begun;
      watching = false;
      await watcher;
      const result = await load.stop();

      assert.equal(code, 0, demo.output());
      assert.ok(took < exitBoundMs, `exited after ${took} ms`);
      assert.ok(took >= drainDelayMs, `it drained for ${drainDelayMs} ms first (${took} ms)`);
      assert.ok(readiness.includes("503"), `ready answered 503 while draining: ${readiness.join(" ")}`);
      const unclean = result.failures.filter((failure) => !failure.endsWith(": ECONNREFUSED"));
      assert.deepEqual(unclean, [], "no request was reset or cut: each was answered or refused before it was sent");
      assert.deepEqual([...result.statuses.keys()].sort(), [200], `statuses: ${JSON.stringify([...result.statuses])}`);

      const idsOf = (path: string): number[] =>
        result.answers
          .filter((a) => a.request.method === "POST" && a.request.path === path)
          .map((a) => (JSON.parse(a.text) as { id: number }).id);
      const companies = idsOf("/api/companies");
      const orders = idsOf("/api/orders");
      assert.ok(companies.length > 10 && orders.length > 10, `${companies.length} companies, ${orders.length} orders answered`);
      const storedCompanies = new Set(
        (await db.rows("SELECT ID AS id FROM Companies WHERE Name LIKE 'Shutdown %'")).map((r) => Number(r.id)),
      );
      assert.deepEqual(
        companies.filter((id) => !storedCompanies.has(id)),
        [],
        "every answered company insert is stored",
      );
      assert.equal(storedCompanies.size, companies.length, "no company insert without an answer is stored");
      const storedOrders = await db.rows(
        "SELECT o.ID AS id, COUNT(l.ID) AS n FROM Orders o LEFT JOIN OrderLines l ON l.OrderID = o.ID WHERE o.Number LIKE 'SD-%' GROUP BY o.ID",
      );
      const lines = new Map(storedOrders.map((row) => [Number(row.id), Number(row.n)]));
      assert.deepEqual(
        orders.filter((id) => lines.get(id) !== 3),
        [],
        "every answered order is stored with its three lines",
      );
      assert.equal(lines.size, orders.length, "no order without an answer is stored, not even in part");
    });
  });
}
