import type { Database } from "tenon";
import { HttpContext, type HttpRequest, type HttpResponse } from "tenon/http";

let sharedDatabase: Database | undefined;

/** Sets the database every request context of the demo uses (once, at start-up). */
export function useDemoDatabase(database: Database): void {
  sharedDatabase = database;
}

/**
 * The demo's per-request context. The server builds one for every request, even anonymous or unknown
 * ones, so the database session is created lazily, on first use (SPEC.md 5 rule 3), and given back when
 * the server disposes the context after the response.
 */
export class DemoContext {
  #orm: HttpContext | undefined;
  #request: HttpRequest | undefined;

  /** The request's ORM session, created on first use; `*By` columns get the caller's user name. */
  get orm(): HttpContext {
    if (this.#orm === undefined) {
      if (sharedDatabase === undefined) throw new Error("The demo database is not open.");
      this.#orm = new HttpContext(sharedDatabase);
      this.#orm.onGetCurrentUser = () => this.#request?.user?.username ?? "";
    }
    return this.#orm;
  }

  /** Called by the server right after construction. */
  attachRequest(request: HttpRequest, _response: HttpResponse): void {
    this.#request = request;
  }

  /**
   * Gives the database connection back. Not an async method: it answers what the session's `dispose()` answers,
   * or undefined when no session was opened, so the server has nothing to wait for on most requests.
   */
  [Symbol.asyncDispose](): Promise<void> | undefined {
    return this.#orm?.dispose();
  }
}
