import type { Database } from "tenon";
import { HttpContext, type HttpRequest, type HttpResponse } from "tenon/http";

/**
 * The demo's per-request context. The server builds one for every request, even anonymous or unknown
 * ones, so the database session is created lazily, on first use (the context is built before authentication, so anonymous requests never open one), and given back when
 * the server disposes the context after the response. The server builds it through a factory,
 * `new HttpServer(() => new DemoContext(database))`, so the database is an argument, not a module's global.
 */
export class DemoContext {
  readonly #database: Database;
  #orm: HttpContext | undefined;
  #request: HttpRequest | undefined;

  /** @param database the demo's database, opened once at start-up. */
  constructor(database: Database) {
    this.#database = database;
  }

  /**
   * The request's ORM session, created on first use; `*By` columns get the caller's user name, every entity (all
   * are scoped by tenant) the caller's tenant, and the entities' policies the caller itself: a caller without a
   * tenant reaches none of them.
   */
  get orm(): HttpContext {
    if (this.#orm === undefined) {
      this.#orm = new HttpContext(this.#database);
      this.#orm.onGetCurrentUser = () => this.#request?.user?.username ?? "";
      this.#orm.onGetCurrentTenant = () => this.#request?.user?.tenant;
      this.#orm.onGetCurrentCaller = () => this.#request?.user;
    }
    return this.#orm;
  }

  /** Called by the server right after construction. */
  attachRequest(request: HttpRequest, _response: HttpResponse): void {
    this.#request = request;
  }

  /** Called by the server when the client has gone before its answer: stops the statement the session runs. */
  abort(): void {
    void this.#orm?.cancel();
  }

  /**
   * Gives the database connection back. Not an async method: it answers what the session's `dispose()` answers,
   * or undefined when no session was opened, so the server has nothing to wait for on most requests.
   */
  [Symbol.asyncDispose](): Promise<void> | undefined {
    return this.#orm?.dispose();
  }
}
