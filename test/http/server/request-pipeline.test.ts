import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ConcurrentUpdateError, DatabaseError, EntityNotFoundError, InvalidInputError, ValidationError } from "../../../src/errors.js";
import { HttpController } from "../../../src/http/exchange/http-controller.js";
import { HttpError, HttpNotFoundError } from "../../../src/http/exchange/http-errors.js";
import type { HttpRequest } from "../../../src/http/exchange/http-request.js";
import { HttpResponse } from "../../../src/http/exchange/http-response.js";
import type { HttpServer } from "../../../src/http/server/http-server.js";
import { Delete, Get, Post, Put, Uri } from "../../../src/http/routing/route-decorators.js";
import { ask, started } from "../http-test-client.js";

const events: string[] = [];
let built = 0;
let disposed = 0;

class CountingContext {
  readonly id = ++built;
  request: HttpRequest | undefined;
  attachRequest(request: HttpRequest): void {
    this.request = request;
  }
  async [Symbol.asyncDispose](): Promise<void> {
    disposed++;
    events.push(`dispose ${this.id}`);
  }
}

@Uri("/things")
class ThingController extends HttpController<CountingContext> {
  @Get()
  list(): unknown {
    return { count: 2, data: ["a", "b"], context: this.context.id, attached: this.context.request === this.request };
  }

  @Get("?")
  async one(id: number): Promise<unknown> {
    await Promise.resolve();
    return { id, type: typeof id };
  }

  @Get("text/?", { params: "string" })
  text(value: string): void {
    this.response.contentType = "text/plain; charset=utf-8";
    this.response.content = `text:${value}`;
  }

  @Post("echo")
  echo(): unknown {
    return { body: this.request.jsonContent };
  }

  @Put("created")
  created(): unknown {
    this.response.statusCode = 201;
    this.response.setHeader("X-Custom", "yes");
    return "made";
  }

  @Get("nothing")
  nothing(): void {}

  @Get("unserializable/?", { params: "string" })
  unserializable(mode: string): unknown {
    const value = { total: 10n, secret: "hunter2" };
    return mode === "async" ? Promise.resolve(value) : value;
  }

  @Get("set-and-return")
  setAndReturn(): unknown {
    this.response.content = "kept";
    return { ignored: true };
  }

  @Delete("fail/?", { params: "string" })
  fail(kind: string): void {
    this.response.setHeader("X-Leak", "handler");
    this.response.contentType = "text/html";
    switch (kind) {
      case "conflict":
        throw new ConcurrentUpdateError("Thing", 3);
      case "validation":
        throw new ValidationError([{ property: "name", column: "NAME", message: "Name is required." }]);
      case "input":
        throw new InvalidInputError("Column x cannot be used in a filter.");
      case "entity":
        throw new EntityNotFoundError("Thing", 42);
      case "httpnotfound":
        throw new HttpNotFoundError(43);
      case "teapot":
        throw new HttpError(418, "I am a teapot.");
      case "database":
        throw new DatabaseError("connection to secret-host:5432 refused");
      case "status503":
        this.response.statusCode = 503;
        this.response.content = "secret detail";
        return;
      case "badheader":
        this.response.setHeader("X-Bad", "line\r\nbreak");
        return;
      default:
        throw new Error("password=hunter2");
    }
  }
}

describe("the request pipeline", () => {
  let server: HttpServer<CountingContext>;
  let port: number;

  before(async () => {
    server = await started(CountingContext, (s) => {
      s.allowAnonymous = true;
      s.registerController(ThingController);
    });
    port = server.port;
  });

  after(async () => {
    await server.stop();
  });

  test("a handler's return value is sent as JSON with status 200", async () => {
    const answer = await ask(port, "/things");
    assert.equal(answer.status, 200);
    assert.equal(answer.headers["content-type"], "application/json; charset=utf-8");
    const body = answer.json as { count: number; data: string[]; attached: boolean };
    assert.equal(body.count, 2);
    assert.deepEqual(body.data, ["a", "b"]);
    assert.equal(body.attached, true, "attachRequest received the same request the controller sees");
  });

  test("every response carries the Server header, tenon by default", async () => {
    const answer = await ask(port, "/things");
    assert.equal(answer.headers.server, "tenon");
    const missing = await ask(port, "/nowhere");
    assert.equal(missing.headers.server, "tenon");
  });

  test("an empty serverHeader omits the Server header", async () => {
    HttpResponse.serverHeader = "";
    try {
      const answer = await ask(port, "/things");
      assert.equal(answer.headers.server, undefined);
    } finally {
      HttpResponse.serverHeader = "tenon";
    }
  });

  test("a placeholder reaches the handler as a 32-bit integer", async () => {
    const answer = await ask(port, "/things/17");
    assert.deepEqual(answer.json, { id: 17, type: "number" });
    const negative = await ask(port, "/things/-5");
    assert.deepEqual(negative.json, { id: -5, type: "number" });
  });

  test("a placeholder that is not a 32-bit integer answers 400", async () => {
    for (const segment of ["abc", "1.5", "2147483648", "12abc"]) {
      const answer = await ask(port, `/things/${segment}`);
      assert.equal(answer.status, 400, segment);
      assert.deepEqual(answer.json, {
        status: 400,
        message: `The segment '${segment}' of /things/${segment} is not a valid 32-bit integer.`,
      });
    }
  });

  test("a route declared with string params receives the decoded segment", async () => {
    const answer = await ask(port, "/things/text/Hello%20World");
    assert.equal(answer.status, 200);
    assert.equal(answer.text, "text:Hello World");
    assert.equal(answer.headers["content-type"], "text/plain; charset=utf-8");
  });

  test("a handler's status and headers are kept on success", async () => {
    const answer = await ask(port, "/things/created", { method: "PUT" });
    assert.equal(answer.status, 201);
    assert.equal(answer.headers["x-custom"], "yes");
    assert.equal(answer.json, "made");
  });

  test("a handler that returns nothing sends an empty 200", async () => {
    const answer = await ask(port, "/things/nothing");
    assert.equal(answer.status, 200);
    assert.equal(answer.text, "");
    assert.equal(answer.headers["content-length"], "0");
  });

  test("content assigned by the handler wins over its return value", async () => {
    const answer = await ask(port, "/things/set-and-return");
    assert.equal(answer.text, "kept");
  });

  test("the request body is read as JSON, an empty body as {}, a BOM accepted", async () => {
    const withBody = await ask(port, "/things/echo", { method: "POST", body: '{"a":1}', headers: { "content-type": "application/json" } });
    assert.deepEqual(withBody.json, { body: { a: 1 } });
    const empty = await ask(port, "/things/echo", { method: "POST" });
    assert.deepEqual(empty.json, { body: {} });
    const bom = await ask(port, "/things/echo", {
      method: "POST",
      body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('[1,"é"]')]),
    });
    assert.deepEqual(bom.json, { body: [1, "é"] });
  });

  test("a malformed JSON body answers 400", async () => {
    const answer = await ask(port, "/things/echo", { method: "POST", body: '{"a":' });
    assert.equal(answer.status, 400);
    assert.deepEqual(answer.json, { status: 400, message: "The request body is not valid JSON." });
  });

  test("a ConcurrentUpdateError answers 409 with its message", async () => {
    const answer = await ask(port, "/things/fail/conflict", { method: "DELETE" });
    assert.equal(answer.status, 409);
    assert.deepEqual(answer.json, { status: 409, message: "Thing 3 was changed or deleted by another user." });
  });

  test("a ValidationError answers 422 with the list of failures", async () => {
    const answer = await ask(port, "/things/fail/validation", { method: "DELETE" });
    assert.equal(answer.status, 422);
    assert.deepEqual(answer.json, {
      status: 422,
      message: "Name is required.",
      errors: [{ property: "name", column: "NAME", message: "Name is required." }],
    });
  });

  test("an InvalidInputError answers 400 with its message", async () => {
    const answer = await ask(port, "/things/fail/input", { method: "DELETE" });
    assert.deepEqual([answer.status, answer.json], [400, { status: 400, message: "Column x cannot be used in a filter." }]);
  });

  test("an absent entity answers 404 Entity <id> not found.", async () => {
    const fromOrm = await ask(port, "/things/fail/entity", { method: "DELETE" });
    assert.deepEqual([fromOrm.status, fromOrm.json], [404, { status: 404, message: "Entity 42 not found." }]);
    const fromHttp = await ask(port, "/things/fail/httpnotfound", { method: "DELETE" });
    assert.deepEqual([fromHttp.status, fromHttp.json], [404, { status: 404, message: "Entity 43 not found." }]);
  });

  test("an HttpError answers its own status and message", async () => {
    const answer = await ask(port, "/things/fail/teapot", { method: "DELETE" });
    assert.deepEqual([answer.status, answer.json], [418, { status: 418, message: "I am a teapot." }]);
  });

  test("an error response drops the headers and content type the handler had set", async () => {
    const answer = await ask(port, "/things/fail/teapot", { method: "DELETE" });
    assert.equal(answer.headers["x-leak"], undefined);
    assert.equal(answer.headers["content-type"], "application/json; charset=utf-8");
  });

  test("an unexpected error answers 500 with a constant body and a task id, nothing of the cause", async () => {
    for (const kind of ["plain", "database"]) {
      const answer = await ask(port, `/things/fail/${kind}`, { method: "DELETE" });
      assert.equal(answer.status, 500);
      const body = answer.json as Record<string, unknown>;
      assert.deepEqual(Object.keys(body), ["status", "message", "taskId"]);
      assert.equal(body.status, 500);
      assert.equal(body.message, "Internal server error.");
      assert.match(String(body.taskId), /^[0-9a-f]{32}$/);
      assert.doesNotMatch(answer.text, /hunter2|secret-host/);
      assert.equal(answer.headers["x-leak"], undefined);
    }
  });

  test("a handler value that JSON cannot write (a bigint) answers 500 with the constant body, returned or resolved", async () => {
    for (const mode of ["sync", "async"]) {
      const answer = await ask(port, `/things/unserializable/${mode}`);
      assert.equal(answer.status, 500, mode);
      assert.equal((answer.json as { message: string }).message, "Internal server error.");
      assert.doesNotMatch(answer.text, /hunter2|BigInt/);
    }
  });

  test("two failures get two different task ids", async () => {
    const first = (await ask(port, "/things/fail/plain", { method: "DELETE" })).json as { taskId: string };
    const second = (await ask(port, "/things/fail/plain", { method: "DELETE" })).json as { taskId: string };
    assert.notEqual(first.taskId, second.taskId);
  });

  test("a 5xx status set by the handler is answered with the constant body", async () => {
    const answer = await ask(port, "/things/fail/status503", { method: "DELETE" });
    assert.equal(answer.status, 503);
    const body = answer.json as Record<string, unknown>;
    assert.equal(body.message, "Internal server error.");
    assert.match(String(body.taskId), /^[0-9a-f]{32}$/);
    assert.doesNotMatch(answer.text, /secret detail/);
  });

  test("an invalid header set by the handler answers 500 instead of breaking the connection", async () => {
    const answer = await ask(port, "/things/fail/badheader", { method: "DELETE" });
    assert.equal(answer.status, 500);
    assert.equal((answer.json as { message: string }).message, "Internal server error.");
  });

  test("a fresh context is built for every request and disposed once after the response", async () => {
    const before = built;
    const first = (await ask(port, "/things")).json as { context: number };
    const second = (await ask(port, "/things")).json as { context: number };
    assert.notEqual(first.context, second.context);
    await ask(port, "/unknown/route");
    await ask(port, "/things/fail/plain", { method: "DELETE" });
    await waitFor(() => disposed === built);
    assert.equal(built - before, 4, "one context per request, also for unknown routes and failures");
    assert.equal(disposed, built);
    assert.equal(new Set(events).size, events.length, "no context disposed twice");
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not reached");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("a context whose disposal fails", () => {
  class FailingDisposal {
    async [Symbol.asyncDispose](): Promise<void> {
      throw new Error("pool is gone");
    }
  }

  @Uri("/fragile")
  class FragileController extends HttpController<FailingDisposal> {
    @Get()
    read(): unknown {
      return { ok: true };
    }
  }

  test("still answers, reports a TenonWarning, and does not keep the request in flight", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => {
      if (warning.name === "TenonWarning") warnings.push(warning.message);
    };
    process.on("warning", onWarning);
    const server = await started(FailingDisposal, (s) => {
      s.allowAnonymous = true;
      s.registerController(FragileController);
    });
    try {
      const answer = await ask(server.port, "/fragile");
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.json, { ok: true });
      await waitFor(() => warnings.length > 0 && server.requestsInFlight === 0);
      assert.match(warnings[0], /disposing a request context failed: Error: pool is gone/);
    } finally {
      process.off("warning", onWarning);
      await server.stop();
    }
  });
});

describe("a context's asynchronous disposal", () => {
  let disposals = 0;
  let release: (() => void) | undefined;

  /** Answers undefined (no session was opened) or, when asked to, a promise the test settles. */
  class LazyContext {
    [Symbol.asyncDispose](): Promise<void> | undefined {
      disposals++;
      if (!holdNext) return undefined;
      holdNext = false;
      return new Promise<void>((resolve) => (release = resolve));
    }
  }
  let holdNext = false;

  @Uri("/lazy")
  class LazyController extends HttpController<LazyContext> {
    @Get()
    read(): unknown {
      return { ok: true };
    }
  }

  test("undefined is a finished disposal: the request is out of flight once answered, disposed once", async () => {
    const server = await started(LazyContext, (s) => {
      s.allowAnonymous = true;
      s.registerController(LazyController);
    });
    try {
      const before = disposals;
      for (let i = 0; i < 3; i++) {
        const answer = await ask(server.port, "/lazy");
        assert.equal(answer.status, 200);
        assert.equal(server.requestsInFlight, 0);
      }
      assert.equal(disposals - before, 3);
    } finally {
      await server.stop();
    }
  });

  test("a pending promise is still waited for: the request stays in flight and stop() waits until it settles", async () => {
    const server = await started(LazyContext, (s) => {
      s.allowAnonymous = true;
      s.registerController(LazyController);
    });
    holdNext = true;
    const answer = await ask(server.port, "/lazy");
    assert.equal(answer.status, 200);
    assert.equal(server.requestsInFlight, 1, "the disposal has not settled yet");
    let stopped = false;
    const stopping = server.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(stopped, false, "stop() waits for the disposal");
    release?.();
    await stopping;
    assert.equal(server.requestsInFlight, 0);
  });
});
