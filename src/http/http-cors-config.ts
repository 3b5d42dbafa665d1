import { HttpDefaults } from "./http-messages.js";

/**
 * CORS settings (SPEC.md 4.5; API.md "Other defaults"). Applied to every preflight (any OPTIONS request,
 * answered 200 without a context) and, for `allowOrigin`, to every other response, errors included.
 * Not guarded: do not change it while the server runs.
 */
export class HttpCorsConfig {
  /** The `Access-Control-Allow-Origin` value; '' (the default) sends none, so no origin is allowed. */
  allowOrigin = "";
  /** Extra request headers allowed, comma-separated; `Content-Type, Authorization` are always allowed. */
  allowHeaders = "";
  /** The `Access-Control-Max-Age` of a preflight, in seconds (default 600). */
  maxAge: number = HttpDefaults.corsMaxAge;
}
