import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { HttpAuthentication } from "../../../src/http/auth/http-authentication.js";
import { HttpController } from "../../../src/http/exchange/http-controller.js";
import { HttpServerError } from "../../../src/http/exchange/http-errors.js";
import type { HttpRequest } from "../../../src/http/exchange/http-request.js";
import type { HttpServer } from "../../../src/http/server/http-server.js";
import { HttpServer as Server } from "../../../src/http/server/http-server.js";
import { HttpUser } from "../../../src/http/exchange/http-user.js";
import {
  Area,
  AuthorizationType,
  Delete,
  Get,
  HttpAuthorizationType,
  Patch,
  Post,
  Put,
  Uri,
} from "../../../src/http/routing/route-decorators.js";
import { ask, raw, started, statusesOf } from "../http-test-client.js";

class Ctx {}

/** Accepts `Authorization: User <name> [areas...]`. */
class HeaderAuthentication extends HttpAuthentication<Ctx> {
  check(request: HttpRequest): void {
    const parts = (request.header("authorization") ?? "").split(" ");
    if (parts[0] === "User" && parts[1] !== undefined) request.user = new HttpUser(parts[1], parts.slice(2));
  }
}

@Uri("/companies")
class CompanyController extends HttpController<Ctx> {
  @Get()
  list(): unknown {
    return "list";
  }
  @Get("?")
  get(id: number): unknown {
    return `get ${id}`;
  }
  @Post("select")
  select(): unknown {
    return "select";
  }
  @Post()
  insert(): unknown {
    return "insert";
  }
  @Put()
  update(): unknown {
    return "update";
  }
  @Delete("?/?")
  remove(id: number, version: number): unknown {
    return `delete ${id} v${version}`;
  }
}

@Uri("/open")
@AuthorizationType(HttpAuthorizationType.None)
class OpenController extends HttpController<Ctx> {
  @Get()
  open(): unknown {
    return "open";
  }
  @Get("closed")
  @AuthorizationType(HttpAuthorizationType.Authentication)
  closed(): unknown {
    return `closed for ${this.request.user?.username}`;
  }
}

@Uri("/mixed")
class MixedController extends HttpController<Ctx> {
  @Get("public")
  @AuthorizationType(HttpAuthorizationType.None)
  publicOne(): unknown {
    return "public";
  }
  @Get("private")
  privateOne(): unknown {
    return "private";
  }
}

class BaseAdminController extends HttpController<Ctx> {
  @Get("report")
  @Area("Admin")
  report(): unknown {
    return "base report";
  }
  @Get("plain")
  plain(): unknown {
    return "plain";
  }
}

@Uri("/admin")
class AdminController extends BaseAdminController {
  override report(): unknown {
    return "override report";
  }
  @Get("audit")
  @Area("audit")
  audit(): unknown {
    return "audit";
  }
}

/** A base class adding routes beside others, as HttpEntityController adds PATCH and bulk beside the single writes. */
class BaseWritesController extends HttpController<Ctx> {
  @Post()
  insert(): unknown {
    return "insert";
  }
  @Put()
  update(): unknown {
    return "update";
  }
  @Delete("?")
  delete(id: number): unknown {
    return `delete ${id}`;
  }
  @Patch("?", { areasOf: ["update"] })
  patch(id: number): unknown {
    return `patch ${id}`;
  }
  @Post("bulk", { areasOf: ["insert", "update", "delete"] })
  bulk(): unknown {
    return "bulk";
  }
}

/** Guards only the single writes: PATCH and bulk borrow their areas. */
@Uri("/guarded")
class GuardedWritesController extends BaseWritesController {
  @Area("write") override insert(): unknown {
    return super.insert();
  }
  @Area("write") override update(): unknown {
    return super.update();
  }
  @Area("remove") override delete(id: number): unknown {
    return super.delete(id);
  }
}

/** An area of PATCH's own replaces the borrowed ones. */
@Uri("/patchers")
class PatcherController extends GuardedWritesController {
  @Area("patcher") override patch(id: number): unknown {
    return super.patch(id);
  }
}

@Uri("/files")
class FilesController extends HttpController<Ctx> {
  @Get("*")
  file(rest: string): unknown {
    return { rest };
  }
}

describe("routing over a real socket", () => {
  let server: HttpServer<Ctx>;
  let port: number;
  const user = { authorization: "User alice" };

  before(async () => {
    server = await started(Ctx, (s) => {
      s.baseUri = "api";
      s.registerAuthentication(HeaderAuthentication);
      s.registerController(CompanyController);
      s.registerController(OpenController);
      s.registerController(MixedController);
      s.registerController(AdminController);
      s.registerController(FilesController, "/static");
      s.registerController(GuardedWritesController);
      s.registerController(PatcherController);
    });
    port = server.port;
  });

  after(async () => {
    await server.stop();
  });

  test("the base URI prefixes every route and a leading slash is added to it", async () => {
    assert.equal(server.baseUri, "/api");
    assert.equal((await ask(port, "/api/companies", { headers: user })).json, "list");
    assert.equal((await ask(port, "/companies", { headers: user })).status, 404);
  });

  test("the conventional CRUD shapes resolve to their handlers", async () => {
    assert.equal((await ask(port, "/api/companies/7", { headers: user })).json, "get 7");
    assert.equal((await ask(port, "/api/companies/select", { method: "POST", headers: user })).json, "select");
    assert.equal((await ask(port, "/api/companies", { method: "POST", headers: user })).json, "insert");
    assert.equal((await ask(port, "/api/companies", { method: "PUT", headers: user })).json, "update");
    assert.equal((await ask(port, "/api/companies/7/3", { method: "DELETE", headers: user })).json, "delete 7 v3");
  });

  test("routes compare without case and a trailing slash does not change the route", async () => {
    assert.equal((await ask(port, "/API/Companies/", { headers: user })).json, "list");
    assert.equal((await ask(port, "/api/COMPANIES/12/", { headers: user })).json, "get 12");
  });

  test("registerController with a URI overrides @Uri, and a catch-all receives the rest of the path", async () => {
    const answer = await ask(port, "/api/static/css/site%20main.css", { headers: user });
    assert.deepEqual(answer.json, { rest: "css/site main.css" });
  });

  test("an unknown address answers 404 Command <path> not found.", async () => {
    const answer = await ask(port, "/api/nothing/here?x=1", { headers: user });
    assert.equal(answer.status, 404);
    assert.deepEqual(answer.json, { status: 404, message: "Command /api/nothing/here not found." });
  });

  test("a known address without the method answers 405 with Allow listing what it answers", async () => {
    const answer = await ask(port, "/api/companies", { method: "DELETE", headers: user });
    assert.equal(answer.status, 405);
    assert.equal(answer.headers.allow, "GET, HEAD, POST, PUT");
    assert.deepEqual(answer.json, { status: 405, message: "Method DELETE not allowed for command /api/companies." });
    const parametrized = await ask(port, "/api/companies/4", { method: "PUT", headers: user });
    assert.equal(parametrized.status, 405);
    assert.equal(parametrized.headers.allow, "GET, HEAD");
  });

  test("HEAD on a GET route answers the same status and headers as GET, without a body", async () => {
    for (const path of ["/api/companies", "/api/companies/4", "/api/nothing/here", "/api/companies/x"]) {
      // one request id for both, as Date is left out: each request has its own
      const get = await ask(port, path, { headers: { ...user, "X-Request-Id": "head-and-get" } });
      const head = await ask(port, path, { method: "HEAD", headers: { ...user, "X-Request-Id": "head-and-get" } });
      assert.equal(head.status, get.status, path);
      assert.equal(head.text, "", path);
      const { date: _getDate, ...getHeaders } = get.headers;
      const { date: _headDate, ...headHeaders } = head.headers;
      assert.deepEqual(headHeaders, getHeaders, path);
    }
  });

  test("TRACE answers 405 without Allow; PATCH, a routable method, answers 405 with the address's Allow", async () => {
    const trace = await ask(port, "/api/companies", { method: "TRACE", headers: user });
    assert.equal(trace.status, 405);
    assert.equal(trace.headers.allow, undefined);
    const patch = await ask(port, "/api/companies", { method: "PATCH", headers: user });
    assert.equal(patch.status, 405);
    assert.notEqual(patch.headers.allow, undefined);
    assert.ok(!String(patch.headers.allow).includes("PATCH"), String(patch.headers.allow));
  });

  test("an anonymous caller gets 401 for unknown routes, wrong methods and real routes alike", async () => {
    for (const [method, path] of [
      ["GET", "/api/nothing"],
      ["DELETE", "/api/companies"],
      ["GET", "/api/companies"],
      ["PATCH", "/x"],
    ]) {
      const answer = await ask(port, path, { method });
      assert.equal(answer.status, 401, `${method} ${path}`);
      assert.equal(answer.headers["www-authenticate"], "Bearer");
      if (method !== "HEAD") assert.deepEqual(answer.json, { status: 401, message: `Access unauthorized: ${path}.` });
    }
  });

  test("CONNECT from an anonymous caller answers 401 like every unrouted method; with credentials 405; the connection closes", async () => {
    const connect = (headers: string) =>
      raw(port, (write) => write(`CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n${headers}\r\n`), 2000);
    const anonymous = await connect("");
    assert.deepEqual(statusesOf(anonymous.text), [401]);
    assert.match(anonymous.text, /\r\nWWW-Authenticate: Bearer\r\n/i);
    assert.match(anonymous.text, /\r\nConnection: close\r\n/i);
    assert.match(anonymous.text, /\{"status":401,"message":"Access unauthorized: [^"]*\."\}$/);
    assert.equal(anonymous.closedByServer, true);
    const known = await connect("Authorization: User alice\r\n");
    assert.deepEqual(statusesOf(known.text), [405]);
    assert.doesNotMatch(known.text, /\r\nAllow:/i);
    assert.match(known.text, /\{"status":405,"message":"Method CONNECT is not allowed: this server is not a proxy\."\}$/);
    assert.equal(known.closedByServer, true);
    assert.equal((await ask(port, "/api/companies", { headers: user })).status, 200, "the server serves on");
  });

  test("AuthorizationType None on a class opens its routes unless a method states Authentication", async () => {
    assert.equal((await ask(port, "/api/open")).json, "open");
    assert.equal((await ask(port, "/api/open/closed")).status, 401);
    assert.equal((await ask(port, "/api/open/closed", { headers: user })).json, "closed for alice");
  });

  test("AuthorizationType None on a method opens that endpoint of an authenticated controller", async () => {
    assert.equal((await ask(port, "/api/mixed/public")).json, "public");
    assert.equal((await ask(port, "/api/mixed/private")).status, 401);
  });

  test("an area answers 403 to a user without it and compares without case", async () => {
    const refused = await ask(port, "/api/admin/audit", { headers: user });
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.json, { status: 403, message: "Access forbidden: /api/admin/audit." });
    assert.equal((await ask(port, "/api/admin/audit", { headers: { authorization: "User bob AUDIT" } })).json, "audit");
  });

  test("an area on an overridden method is inherited by the override", async () => {
    assert.equal((await ask(port, "/api/admin/report", { headers: user })).status, 403);
    const allowed = await ask(port, "/api/admin/report", { headers: { authorization: "User root admin" } });
    assert.equal(allowed.json, "override report");
    assert.equal((await ask(port, "/api/admin/plain", { headers: user })).json, "plain");
  });

  test("a route with areasOf and no area of its own is guarded by the areas of the methods it names", async () => {
    const as = (who: string) => ({ headers: { authorization: `User ${who}` } });
    assert.equal((await ask(port, "/api/guarded/3", { method: "PATCH", ...as("alice") })).status, 403);
    assert.equal((await ask(port, "/api/guarded/3", { method: "PATCH", ...as("wendy write") })).json, "patch 3");
    assert.equal((await ask(port, "/api/guarded/bulk", { method: "POST", ...as("wendy write") })).status, 403);
    assert.equal((await ask(port, "/api/guarded/bulk", { method: "POST", ...as("rita remove") })).status, 403);
    assert.equal((await ask(port, "/api/guarded/bulk", { method: "POST", ...as("both write remove") })).json, "bulk");
    assert.equal((await ask(port, "/api/patchers/3", { method: "PATCH", ...as("wendy write") })).status, 403);
    assert.equal((await ask(port, "/api/patchers/3", { method: "PATCH", ...as("pat patcher") })).json, "patch 3");
  });

  test("%2F in a request path does not create a segment", async () => {
    const answer = await ask(port, "/api/companies/1%2F2", { method: "DELETE", headers: user });
    assert.equal(answer.status, 405, "one segment after /companies: the GET ? route, not DELETE ?/?");
  });

  test("several requests on one keep-alive connection are answered in order", async () => {
    const request = "GET /api/open HTTP/1.1\r\nHost: x\r\n\r\n";
    const outcome = await raw(port, (write) => write(request + request + "GET /api/nope HTTP/1.1\r\nHost: x\r\n\r\n"), 500);
    assert.deepEqual(statusesOf(outcome.text), [200, 200, 401]);
  });
});

describe("route registration", () => {
  test("a fixed segment after a placeholder is refused when the controller is registered", () => {
    @Uri("/bad")
    class BadController extends HttpController<Ctx> {
      @Get("?/detail")
      detail(): void {}
    }
    const server = new Server(Ctx);
    assert.throws(
      () => server.registerController(BadController),
      (error: unknown) => error instanceof HttpServerError && /fixed segment after a placeholder/.test(error.message),
    );
  });

  test("a controller registers once; a generic controller registers once per entity type with its own URI", () => {
    class EntityController<T> extends HttpController<Ctx> {
      @Get("?")
      get(id: number): unknown {
        return id;
      }
      declare entity?: T;
    }
    class CompanyEntities extends EntityController<{ company: true }> {}
    class EmployeeEntities extends EntityController<{ employee: true }> {}
    const server = new Server(Ctx);
    server.registerController(CompanyEntities, "/companies");
    server.registerController(EmployeeEntities, "/employees");
    assert.throws(() => server.registerController(CompanyEntities, "/other"), /already registered/);
  });

  test("a controller without @Uri and without a URI is refused", () => {
    class NoUri extends HttpController<Ctx> {
      @Get()
      get(): void {}
    }
    assert.throws(() => new Server(Ctx).registerController(NoUri), /no @Uri/);
  });
});
