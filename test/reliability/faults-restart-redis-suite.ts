// The Redis rate-limit store killed (SIGKILL) and started again under load, against the demo process
// (`RATE_LIMIT=200 REDIS_URL=<a throwaway Redis>`). Before the fix, the Redis client queued every count while
// Redis was away: requests got no answer at all, and the writes of clients that had given up ran once Redis
// came back. Shown here: while Redis is away every limited request is answered 503 with `Retry-After` within a
// bound (never a hang), the outage is logged, a write sent meanwhile is not stored (whether its client waited
// for the 503 or gave up first), and once Redis is back the demo serves again by itself. Written once, run per
// engine.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { after, before, describe, test } from "node:test";
import { ask, sleep } from "../http/http-test-client.js";
import type { DemoDatabase, DemoEngine } from "../demo/demo-engines.js";
import { waitFor } from "../demo/demo-load.js";
import { startDemo, type DemoProcess } from "../demo/demo-process.js";
import { startThrowawayRedis, type ThrowawayRedis } from "../support/throwaway-redis.js";

/** How long a client waits for an answer before it gives up (the bound of "never a hang"). Generous: a busy machine. */
const patienceMs = 10_000;

/** What one request got: its status and headers, or `gone` when its client gave up first. */
type Outcome =
  | { readonly status: number; readonly retryAfter: string | undefined; readonly ms: number }
  | { readonly status: "gone"; readonly ms: number };

/** Sends one request on a fresh connection; gives up (closes the connection) after `giveUpMs`. */
function within(
  port: number,
  path: string,
  giveUpMs: number,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Outcome> {
  const begun = Date.now();
  return new Promise((resolve) => {
    const req = httpRequest(
      { host: "127.0.0.1", port, path, method: options.method ?? "GET", headers: options.headers, agent: false },
      (res) => {
        res.resume();
        res.on("end", () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"] as string | undefined, ms: Date.now() - begun });
        });
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      resolve({ status: "gone", ms: Date.now() - begun });
    }, giveUpMs);
    req.on("error", () => {
      clearTimeout(timer);
      resolve({ status: "gone", ms: Date.now() - begun });
    });
    req.end(options.body);
  });
}

/** Defines the suite on one engine. */
export function defineRedisRestartSuite(engine: DemoEngine): void {
  describe(`the Redis rate-limit store killed and restarted under load, on ${engine.name}`, () => {
    let redis: ThrowawayRedis;
    let db: DemoDatabase;
    let demo: DemoProcess;

    before(async () => {
      redis = await startThrowawayRedis();
      db = await engine.open();
      demo = await startDemo({ ...db.env, DEMO_RESET: "1", RATE_LIMIT: "200", REDIS_URL: redis.url });
    });
    after(async () => {
      await demo?.stop("SIGKILL");
      await db?.close();
      await redis?.close();
    });

    test("limited requests answer 503 with Retry-After within a bound, no write of the outage is stored, and service resumes", async () => {
      const tag = `Redis gone ${process.pid}`;
      const logon = await ask(demo.port, "/api/logon", {
        method: "POST",
        body: JSON.stringify({ username: "editor", password: "editor" }),
      });
      assert.equal(logon.status, 200, logon.text);
      const headers = { Authorization: `Bearer ${(logon.json as { token: string }).token}`, "Content-Type": "application/json" };
      const up = await ask(demo.port, "/api/health");
      assert.equal(up.status, 200);
      assert.match(String(up.headers.ratelimit), /"address";r=\d+;t=\d+/, "the limit is counted in Redis");

      // The load: two clients reading one after another (a pause between), each giving up after `patienceMs`.
      const outcomes: Outcome[] = [];
      let loading = true;
      const reader = async (path: string): Promise<void> => {
        while (loading) {
          outcomes.push(await within(demo.port, path, patienceMs, { headers }));
          await sleep(100);
        }
      };
      const readers = [reader("/api/health"), reader("/api/companies/1")];
      await waitFor(() => outcomes.length >= 6, "the load's first answers");

      await redis.stop("immediate");
      // Every limited request is answered 503 with Retry-After while Redis is away: never a hang.
      const healthDuringOutage: Outcome[] = [];
      for (let i = 0; i < 5; i++) healthDuringOutage.push(await within(demo.port, "/api/health", patienceMs));
      for (const outcome of healthDuringOutage) {
        assert.equal(outcome.status, 503, `GET /api/health while Redis is away: ${JSON.stringify(outcome)}`);
        assert.equal(outcome.status === 503 ? outcome.retryAfter : "", "1");
      }
      // Writes sent while Redis is away, from clients that give up soon or wait: none may be stored, now or later.
      const writes = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          within(demo.port, "/api/companies", i % 2 === 0 ? 50 : patienceMs, {
            method: "POST",
            headers,
            body: JSON.stringify({ name: `${tag} ${i}`, creditLimit: "5.00" }),
          }),
        ),
      );
      for (const outcome of writes)
        assert.ok(outcome.status === 503 || outcome.status === "gone", `a write while Redis is away: ${JSON.stringify(outcome)}`);
      await sleep(500);

      await redis.start();
      // The client reconnects by itself: the demo serves again without being touched.
      let back: Outcome | undefined;
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline) {
        back = await within(demo.port, "/api/health", patienceMs);
        if (back.status === 200) break;
        await sleep(200);
      }
      assert.equal(back?.status, 200, `after Redis came back: ${JSON.stringify(back)}`);
      const written = await ask(demo.port, "/api/companies", {
        method: "POST",
        headers,
        body: JSON.stringify({ name: `${tag} after`, creditLimit: "5.00" }),
      });
      assert.equal(written.status, 200, written.text);
      await sleep(1000);
      loading = false;
      await Promise.all(readers);

      const gaveUp = outcomes.filter((outcome) => outcome.status === "gone");
      assert.deepEqual(gaveUp, [], "no request of the load went unanswered");
      const statuses = new Set(outcomes.map((outcome) => outcome.status));
      assert.ok(statuses.has(503), `the load saw the outage: ${[...statuses].join(", ")}`);
      for (const status of statuses) assert.ok(status === 200 || status === 503, `the load's answers are 200 or 503, not ${status}`);
      assert.equal(outcomes.at(-1)?.status, 200, "the load is served again at its end");

      const stored = (await db.rows(`SELECT Name AS name FROM Companies WHERE Name LIKE '${tag}%'`)).map((row) => String(row.name));
      assert.deepEqual(stored, [`${tag} after`], "only the write made after Redis came back is stored");
      // The outage is in the output and in the log (each 503 with its cause, under the answer's task id).
      assert.match(demo.output(), /Redis rate-limit store unreachable/);
      assert.match(demo.output(), /Redis rate-limit store reachable again/);
      const log = readFileSync(db.logFile, "utf8");
      assert.match(log, /rate-limit store/, "the cause of a 503 is logged");
    });
  });
}
