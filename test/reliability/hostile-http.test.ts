// Hostile HTTP against the demo application on a real SQLite file, over raw sockets: a corpus of known
// attacks and mistakes and fast-check-generated malformed requests. Every one gets an answer below 500 or a
// clean close within a bound, never a 5xx, a hang or a crash, and the process keeps serving.
// TENON_LONG=1 sends 10,000 generated requests (600 otherwise); TENON_SEED=<n> replays a run.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import { type DemoDatabase, sqliteDemoEngine } from "../demo/demo-engines.js";
import { type DemoProcess, startDemo } from "../demo/demo-process.js";
import { type HostileCase, hostileCorpus, hostileRequests, type Tokens } from "./hostile-requests.js";
import { type Exchange, exchange } from "./raw-exchange.js";

const long = process.env.TENON_LONG === "1";
const seed = process.env.TENON_SEED === undefined ? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0 : Number(process.env.TENON_SEED);
const generatedCount = long ? 10000 : 600;
/** The demo's headers and body timeouts (the server's defaults). */
const slowMs = 10000;
const concurrency = 12;

/** Runs `work` over `items` with at most `limit` at once. */
async function pool<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index], index);
    }
  });
  await Promise.all(runners);
}

/** The JSON body of the first answer, when it is complete and has one. */
function firstBody(text: string): unknown {
  const split = text.indexOf("\r\n\r\n");
  if (split < 0) return undefined;
  const head = text.slice(0, split);
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  if (length === null || Number(length[1]) === 0) return undefined;
  const body = text.slice(split + 4, split + 4 + Number(length[1]));
  return body.length === Number(length[1]) ? JSON.parse(body) : undefined;
}

/** What is wrong with an outcome, or undefined: a 5xx, a hang, an error answer without the documented body. */
function problemWith(outcome: Exchange, options: { mustClose: boolean; expect?: readonly number[]; head: boolean }): string | undefined {
  const serverErrors = outcome.statuses.filter((status) => status >= 500);
  if (serverErrors.length > 0) return `answered ${serverErrors.join(", ")}`;
  if (options.mustClose && !outcome.closed)
    return `neither closed nor answered completely within the bound (statuses ${outcome.statuses.join(",") || "none"})`;
  const first = outcome.statuses.find((status) => status >= 200);
  if (options.expect !== undefined && (first === undefined || !options.expect.includes(first))) {
    return `answered ${first ?? "nothing"}, expected ${options.expect.join(" or ")}`;
  }
  if (first !== undefined && first >= 400 && !options.head && outcome.statuses[0] === first) {
    const body = firstBody(outcome.text) as { status?: unknown; message?: unknown } | undefined;
    if (body !== undefined && (body.status !== first || typeof body.message !== "string"))
      return `a ${first} without the JSON body: ${JSON.stringify(body)}`;
    if (!/\r\nserver: tenon\r\n/i.test(outcome.text.slice(0, outcome.text.indexOf("\r\n\r\n") + 2)))
      return `a ${first} without the Server header`;
  }
  return undefined;
}

async function logon(port: number, username: string): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/api/logon`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username, password: username }),
  });
  assert.equal(response.status, 200);
  return ((await response.json()) as { token: string }).token;
}

describe("hostile HTTP against the demo on SQLite", () => {
  let database: DemoDatabase;
  let demo: DemoProcess;
  let tokens: Tokens;

  before(async () => {
    database = await sqliteDemoEngine.open();
    demo = await startDemo({ ...database.env, TRUSTED_PROXIES: "127.0.0.1" });
    tokens = { guest: await logon(demo.port, "guest"), admin: await logon(demo.port, "admin") };
  });

  after(async () => {
    const code = await demo?.stop();
    await database?.close();
    assert.equal(code, 0, `the demo exits cleanly after the storm. Output:\n${demo?.output()}`);
  });

  describe("the storm: corpus, generated requests and spoofed addresses at once", { concurrency: true }, () => {
    test("every corpus case gets its answer below 500 or a clean close within its bound, never a 5xx or a hang", async () => {
      const cases = hostileCorpus(tokens, slowMs);
      const failures: string[] = [];
      let slowest = 0;
      await pool(cases, cases.length, async (hostile: HostileCase) => {
        const outcome = await exchange(demo.port, hostile.steps, {
          halfClose: hostile.halfClose ?? true,
          // Generous: on a loaded machine an answer can take more than a second, and a half-close before it
          // makes node:http drop the request, which would read as a missing answer.
          quietMs: 5000,
          boundMs: hostile.boundMs ?? 5000,
          answers: hostile.answers,
        });
        slowest = Math.max(slowest, outcome.ms);
        const problem = problemWith(outcome, { mustClose: hostile.mustClose ?? true, expect: hostile.expect, head: false });
        if (problem !== undefined)
          failures.push(
            `${hostile.name}: ${problem} (${outcome.ms} ms, closed ${outcome.closed}, ${outcome.error})\n    received: ${JSON.stringify(outcome.text.slice(0, 300))}`,
          );
      });
      assert.deepEqual(failures, [], `${failures.length} of ${cases.length} corpus cases failed`);
    });

    test(`${generatedCount} generated malformed requests: none answers 5xx, none hangs (seed printed)`, async () => {
      console.log(`hostile HTTP: seed ${seed} (TENON_SEED=${seed} replays this run), ${generatedCount} generated requests`);
      const requests = fc.sample(hostileRequests(tokens), { seed, numRuns: generatedCount });
      const failures: string[] = [];
      const statuses = new Map<string, number>();
      const times: number[] = [];
      const started = Date.now();
      await pool(requests, concurrency, async (request, index) => {
        const outcome = await exchange(demo.port, [request.bytes], { halfClose: true, quietMs: 1000, boundMs: 5000 });
        times.push(outcome.ms);
        const first = outcome.statuses.find((status) => status >= 200);
        const key = first === undefined ? "closed without an answer" : String(first);
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
        const problem = problemWith(outcome, { mustClose: true, head: request.method === "HEAD" });
        if (problem !== undefined && failures.length < 20) {
          failures.push(
            `#${index}: ${problem}\n    sent: ${JSON.stringify(request.bytes.toString("latin1").slice(0, 400))}\n    received: ${JSON.stringify(outcome.text.slice(0, 300))}`,
          );
        }
      });
      times.sort((a, b) => a - b);
      const summary = [...statuses].sort((a, b) => b[1] - a[1]).map(([status, count]) => `${status}: ${count}`);
      console.log(
        `hostile HTTP: ${requests.length} requests in ${Date.now() - started} ms; time to close p50 ${times[Math.floor(times.length / 2)]} ms, ` +
          `p99 ${times[Math.floor(times.length * 0.99)]} ms, max ${times[times.length - 1]} ms; first answers ${summary.join(", ")}`,
      );
      assert.deepEqual(failures, [], `seed ${seed}: some generated requests failed`);
    });

    test("the X-Forwarded-For of a peer off the trust list (127.0.0.2) is ignored, the trusted peer's is believed", async () => {
      const marker = `spoof${seed >>> 0}`;
      const request = (who: string): string =>
        `GET /api/health?${marker}=${who} HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 203.0.113.66\r\nConnection: close\r\n\r\n`;
      for (const [who, localAddress] of [
        ["untrusted", "127.0.0.2"],
        ["trusted", "127.0.0.1"],
      ]) {
        const outcome = await exchange(demo.port, [request(who)], { boundMs: 5000, localAddress });
        assert.deepEqual(outcome.statuses, [200], who);
      }
      const logged = async (who: string): Promise<{ remoteIp: string; clientIp: string }> => {
        for (let attempt = 0; attempt < 100; attempt++) {
          const line = readFileSync(database.logFile, "utf8")
            .split("\n")
            .find((entry) => entry.includes(`"log":"request"`) && entry.includes(`{"name":"${marker}","value":"${who}"}`));
          if (line !== undefined) return JSON.parse(line) as { remoteIp: string; clientIp: string };
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        throw new Error(`no request log line for ${who}`);
      };
      const untrusted = await logged("untrusted");
      assert.deepEqual([untrusted.remoteIp, untrusted.clientIp], ["127.0.0.2", "127.0.0.2"]);
      const trusted = await logged("trusted");
      assert.deepEqual([trusted.remoteIp, trusted.clientIp], ["127.0.0.1", "203.0.113.66"]);
    });
  });

  test("after the storm the process still serves, and no request failed inside the server", async () => {
    const health = await fetch(`http://127.0.0.1:${demo.port}/api/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: "ok" });
    const companies = await fetch(`http://127.0.0.1:${demo.port}/api/companies/1`, {
      headers: { authorization: `Bearer ${tokens.guest}` },
    });
    assert.equal(companies.status, 200);
    assert.doesNotMatch(demo.output(), /failed inside the server|TenonWarning/);
  });
});
