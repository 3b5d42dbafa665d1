// No handler starts for a client that has already gone. A request that waits before its handler (for a shared
// rate-limit store, for its authentication) and whose client closes its connection meanwhile is not run: its
// write never happens, nothing is sent, and the log has its response with status 499 and an action line with
// the reason, under the request's id. A
// client that stays gets its answer as usual. Real sockets; the waits are gates the test opens.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { HttpAuthentication } from "../../../src/http/auth/http-authentication.js";
import { HttpController } from "../../../src/http/exchange/http-controller.js";
import { HttpUnauthorizedError } from "../../../src/http/exchange/http-errors.js";
import type { HttpRequest } from "../../../src/http/exchange/http-request.js";
import { HttpUser } from "../../../src/http/exchange/http-user.js";
import type { HttpRateLimitStore, RateLimitCount } from "../../../src/http/operations/rate-limit-store.js";
import type { HttpServer } from "../../../src/http/server/http-server.js";
import { Post, Uri } from "../../../src/http/routing/route-decorators.js";
import { ask, raw, sleep, started } from "../http-test-client.js";
import { Recording, recordingWriter } from "../logging/recording-writer.js";

class Ctx {}

/** The writes the handler made, by name. */
const written: string[] = [];

@Uri("/things")
class ThingsController extends HttpController<Ctx> {
  @Post()
  insert(): unknown {
    const name = (this.request.jsonContent as { name: string }).name;
    written.push(name);
    return { name };
  }
}

/** Something a request waits for until the test lets it through. */
class Gate {
  #waiting: (() => void)[] = [];
  get waiting(): number {
    return this.#waiting.length;
  }
  wait(): Promise<void> {
    return new Promise((resolve) => this.#waiting.push(resolve));
  }
  openAll(): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resolve of waiting) resolve();
  }
}

const storeGate = new Gate();
const authenticationGate = new Gate();

/** A shared store that answers only when the test opens its gate (a Redis that is slow or away). */
class GatedStore implements HttpRateLimitStore {
  async hit(): Promise<RateLimitCount> {
    await storeGate.wait();
    return { count: 1, resetMs: 60_000 };
  }
}

/** An authentication that takes its time (a remote identity provider). */
class SlowAuthentication extends HttpAuthentication<Ctx> {
  async check(request: HttpRequest): Promise<void> {
    await authenticationGate.wait();
    if (request.header("authorization") !== "User ann") throw new HttpUnauthorizedError();
    request.user = new HttpUser("ann", []);
  }
}

function post(name: string, authorization = false): string {
  const body = JSON.stringify({ name });
  const auth = authorization ? "Authorization: User ann\r\n" : "";
  return `POST /things HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
}

/** Sends a POST and closes the connection once `gate` holds it (the client gives up while the request waits). */
async function postAndLeave(server: HttpServer<Ctx>, gate: Gate, name: string, authorization = false): Promise<void> {
  const before = gate.waiting;
  await raw(
    server.port,
    async (write) => {
      write(post(name, authorization));
      while (gate.waiting === before) await sleep(10);
    },
    0,
  );
}

async function untilStatus(recording: Recording, status: number): Promise<void> {
  await recording.until(() => recording.responses.some((response) => response.statusCode === status));
}

describe("a client that leaves while its request waits before the handler", () => {
  test("the rate-limit store's late answer runs no handler: no write, status 499 logged", async () => {
    const recording = new Recording();
    const server = await started(Ctx, (s) => {
      s.allowAnonymous = true;
      s.registerController(ThingsController);
      s.registerLogWriter(recordingWriter(recording));
      s.rateLimitStore = new GatedStore();
      s.rateLimitStoreTimeout = 60_000;
      s.addRateLimit({ name: "shared", limit: 100, windowSeconds: 60, by: "ip" });
    });
    try {
      await postAndLeave(server, storeGate, "left while counted");
      // The server notices the closed connection before the store answers.
      await sleep(200);
      storeGate.openAll();
      await untilStatus(recording, 499);
      assert.deepEqual(written, [], "the handler did not run");
      const gone = recording.responses.find((response) => response.statusCode === 499);
      const reason = recording.actions.find((action) => action.requestId === gone?.requestId);
      assert.match(String(reason?.message), /waited for the rate-limit store: the handler was not run/);

      // A client that stays is answered once the store answers.
      const staying = ask(server.port, "/things", { method: "POST", body: JSON.stringify({ name: "stayed" }) });
      while (storeGate.waiting === 0) await sleep(10);
      storeGate.openAll();
      const answer = await staying;
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(written, ["stayed"]);
    } finally {
      storeGate.openAll();
      await server.stop();
      written.length = 0;
    }
  });

  test("an authentication that ends after the client left runs no handler: no write, status 499 logged", async () => {
    const recording = new Recording();
    const server = await started(Ctx, (s) => {
      s.registerAuthentication(SlowAuthentication);
      s.registerController(ThingsController);
      s.registerLogWriter(recordingWriter(recording));
    });
    try {
      await postAndLeave(server, authenticationGate, "left while authenticated", true);
      await sleep(200);
      authenticationGate.openAll();
      await untilStatus(recording, 499);
      assert.deepEqual(written, [], "the handler did not run");
      const gone = recording.responses.find((response) => response.statusCode === 499);
      const reason = recording.actions.find((action) => action.requestId === gone?.requestId);
      assert.match(String(reason?.message), /while the request was being authenticated: the handler was not run/);
      assert.equal(recording.errors.length, 0, "a client that left is not a server error");

      const staying = ask(server.port, "/things", {
        method: "POST",
        headers: { Authorization: "User ann" },
        body: JSON.stringify({ name: "stayed" }),
      });
      while (authenticationGate.waiting === 0) await sleep(10);
      authenticationGate.openAll();
      const answer = await staying;
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(written, ["stayed"]);
    } finally {
      authenticationGate.openAll();
      await server.stop();
      written.length = 0;
    }
  });

  test("behind both a shared store and authentication, a client that left during either runs no handler", async () => {
    const recording = new Recording();
    const server = await started(Ctx, (s) => {
      s.registerAuthentication(SlowAuthentication);
      s.registerController(ThingsController);
      s.registerLogWriter(recordingWriter(recording));
      s.rateLimitStore = new GatedStore();
      s.rateLimitStoreTimeout = 60_000;
      s.addRateLimit({ name: "per-user", limit: 100, windowSeconds: 60, by: "user" });
    });
    try {
      // The store is asked after authentication (a limit by user): the client leaves while it counts.
      const leaving = postAndLeave(server, storeGate, "left after authentication", true);
      while (authenticationGate.waiting === 0) await sleep(10);
      authenticationGate.openAll();
      await leaving;
      await sleep(200);
      storeGate.openAll();
      await untilStatus(recording, 499);
      assert.deepEqual(written, []);
    } finally {
      storeGate.openAll();
      authenticationGate.openAll();
      await server.stop();
      written.length = 0;
    }
  });
});
