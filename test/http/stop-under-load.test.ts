import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { HttpController } from "../../src/http/exchange/http-controller.js";
import { Get, Uri } from "../../src/http/routing/route-decorators.js";
import { ask, sleep, started, type Answer } from "./http-test-client.js";

let built = 0;
let disposed = 0;
let handlerDelayMs = 200;

class Ctx {
  constructor() {
    built++;
  }
  async [Symbol.asyncDispose](): Promise<void> {
    await sleep(1);
    disposed++;
  }
}

@Uri("/work")
class WorkController extends HttpController<Ctx> {
  @Get("?")
  async work(id: number): Promise<unknown> {
    await sleep(handlerDelayMs / 2 + ((id * 7919) % handlerDelayMs));
    return { id, payload: "z".repeat(2000) };
  }
}

async function waitUntil(condition: () => boolean, timeoutMs = 20000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error("timed out");
    await sleep(5);
  }
}

type Outcome = { ok: true; answer: Answer } | { ok: false; code: string };

function settle(promise: Promise<Answer>): Promise<Outcome> {
  return promise.then(
    (answer) => ({ ok: true as const, answer }),
    (error: NodeJS.ErrnoException) => ({ ok: false as const, code: error.code ?? error.message }),
  );
}

describe("stopping under load", () => {
  test("stop while 200 requests are in flight: every one gets its full answer and every context is disposed", async () => {
    handlerDelayMs = 300;
    const server = await started(Ctx, (s) => {
      s.allowAnonymous = true;
      s.stopGracePeriod = 15000;
      s.registerController(WorkController);
    });
    const port = server.port;
    const builtBefore = built;
    const requests = Array.from({ length: 200 }, (_, i) => settle(ask(port, `/work/${i}`)));
    await waitUntil(() => built - builtBefore === 200);
    assert.ok(server.requestsInFlight > 0);
    await server.stop();
    assert.equal(server.requestsInFlight, 0);
    const outcomes = await Promise.all(requests);
    for (const [i, outcome] of outcomes.entries()) {
      assert.ok(outcome.ok, `request ${i} failed: ${outcome.ok ? "" : outcome.code}`);
      assert.equal(outcome.answer.status, 200);
      assert.equal((outcome.answer.json as { id: number }).id, i);
      assert.equal(outcome.answer.headers.connection, "close");
    }
    assert.equal(disposed, built, "stop() returned after every context was disposed");
    await assert.rejects(ask(port, "/work/1"), /ECONNREFUSED/);
  });

  test("past the grace period connections are closed cleanly and contexts are still disposed", async () => {
    handlerDelayMs = 1500;
    const server = await started(Ctx, (s) => {
      s.allowAnonymous = true;
      s.stopGracePeriod = 100;
      s.registerController(WorkController);
    });
    const builtBefore = built;
    const requests = Array.from({ length: 200 }, (_, i) => settle(ask(server.port, `/work/${i}`)));
    await waitUntil(() => built - builtBefore === 200);
    await server.stop();
    const outcomes = await Promise.all(requests);
    for (const outcome of outcomes) {
      if (outcome.ok) assert.equal(outcome.answer.status, 200, "an answer, when there is one, is whole");
      else assert.match(outcome.code, /ECONNRESET|socket hang up/);
    }
    assert.ok(
      outcomes.some((outcome) => !outcome.ok),
      "the short grace period cut some requests",
    );
    await waitUntil(() => disposed === built);
    assert.equal(disposed, built);
  });
});
