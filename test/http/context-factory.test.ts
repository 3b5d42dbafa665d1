import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HttpController } from "../../src/http/exchange/http-controller.js";
import type { HttpServer } from "../../src/http/server/http-server.js";
import { Get, Uri } from "../../src/http/routing/route-decorators.js";
import { ask, started } from "./http-test-client.js";

/** A context that needs an argument: what a factory exists for (a database, in an application). */
class ArgumentContext {
  static built = 0;
  readonly serial = ++ArgumentContext.built;
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }
}

/** A context built with no arguments, as a class passed directly is. */
class PlainContext extends ArgumentContext {
  constructor() {
    super("class");
  }
}

@Uri("/who")
class WhoController extends HttpController<ArgumentContext> {
  @Get()
  who(): unknown {
    return { name: this.context.name, serial: this.context.serial };
  }
}

/** Starts a server on `source`, asks GET /who twice and stops it. */
async function twoAnswers(source: ConstructorParameters<typeof HttpServer<ArgumentContext>>[0]): Promise<unknown[]> {
  const server = await started<ArgumentContext>(source, (s) => {
    s.allowAnonymous = true;
    s.registerController(WhoController);
  });
  try {
    const first = await ask(server.port, "/who");
    const second = await ask(server.port, "/who");
    assert.equal(first.status, 200);
    return [first.json, second.json];
  } finally {
    await server.stop();
  }
}

describe("HttpServer builds each request's context from a class or from a factory", () => {
  it("an arrow function is called for every request, so the context can take arguments", async () => {
    const [a, b] = (await twoAnswers(() => new ArgumentContext("arrow"))) as { name: string; serial: number }[];
    assert.equal(a.name, "arrow");
    assert.equal(b.name, "arrow");
    assert.notEqual(a.serial, b.serial, "a new context for every request");
  });

  it("a class is built with new and no arguments for every request", async () => {
    const [a, b] = (await twoAnswers(PlainContext)) as { name: string; serial: number }[];
    assert.deepEqual([a.name, b.name], ["class", "class"]);
    assert.notEqual(a.serial, b.serial);
  });

  it("a function expression that returns a context works too (new answers the object it returns)", async () => {
    const [a] = (await twoAnswers(function make() {
      return new ArgumentContext("function");
    })) as { name: string }[];
    assert.equal(a.name, "function");
  });

  it("a method used as a factory is called without this", async () => {
    const holder = {
      label: "method",
      create(): ArgumentContext {
        return new ArgumentContext(this === undefined ? "no this" : "this");
      },
    };
    const [a] = (await twoAnswers(holder.create)) as { name: string }[];
    assert.equal(a.name, "no this");
  });
});
