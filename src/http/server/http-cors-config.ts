import { HttpDefaults } from "../exchange/http-messages.js";

/**
 * CORS settings (defaults in docs/http.md). Applied to every preflight (any OPTIONS request,
 * answered 200 without a context) and, for `allowOrigin`, to every other response, errors included.
 * Not guarded: do not change it while the server runs.
 */
export class HttpCorsConfig {
  /**
   * The `Access-Control-Allow-Origin` value; '' (the default) sends none, so no origin is allowed. `*` or
   * one origin is sent as it is on every response. A comma-separated list of origins
   * (`https://a.example, https://b.example`) sends the request's `Origin` when the list holds it (compared
   * without case) and nothing otherwise, with `Vary: Origin` on every response, since the answer then
   * depends on the origin.
   */
  allowOrigin = "";
  /** Extra request headers allowed, comma-separated; `Content-Type, Authorization` are always allowed. */
  allowHeaders = "";
  /** The `Access-Control-Max-Age` of a preflight, in seconds (default 600). */
  maxAge: number = HttpDefaults.corsMaxAge;

  #parsedFrom = "";
  #origins: readonly string[] | undefined;

  /**
   * The allowed origins, lower-cased, when `allowOrigin` is a list of more than one; undefined when it is
   * '', `*` or a single origin (the answer then does not depend on the request). Parsed once per value.
   * @internal
   */
  get originList(): readonly string[] | undefined {
    const value = this.allowOrigin;
    if (value !== this.#parsedFrom) {
      this.#parsedFrom = value;
      const items = value
        .split(",")
        .map((item) => item.trim().toLowerCase())
        .filter((item) => item !== "");
      this.#origins = items.length > 1 ? items : undefined;
    }
    return this.#origins;
  }

  /**
   * The `Access-Control-Allow-Origin` to send for a request whose `Origin` header is `origin` ('' for none).
   * @internal
   */
  allowedOriginFor(origin: string | undefined): string {
    const list = this.originList;
    if (list === undefined) return this.allowOrigin.trim();
    return origin !== undefined && list.includes(origin.trim().toLowerCase()) ? origin.trim() : "";
  }
}
