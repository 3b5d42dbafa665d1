import { HttpUnauthorizedError } from "../exchange/http-errors.js";
import type { HttpRequest } from "../exchange/http-request.js";
import { HttpUser } from "../exchange/http-user.js";
import { HttpAuthentication } from "./http-authentication.js";
import type { JwtKeyring, JwtPayload } from "./jwt-keyring.js";
import { HttpMessages } from "../exchange/http-messages.js";

/**
 * Bearer authentication with JSON Web Tokens (HS256 and RS256 with key ids, see `JwtKeyring`). Reads
 * `Authorization: Bearer <token>`, verifies it with `keyring` (signature, `alg` bound to the key, `exp`),
 * then asks `isValid` with the claims. Issue tokens at log-on with `keyring.sign(...)`.
 */
export abstract class BearerAuthentication<C> extends HttpAuthentication<C> {
  /** The keys that verify tokens: return one keyring built at start-up, not a new one per request. */
  protected abstract get keyring(): JwtKeyring;

  /**
   * Decides whether a verified token is accepted: `false` (or undefined) refuses with 401, `true` accepts
   * a user named by `sub` with no areas, an `HttpUser` accepts that user.
   */
  protected abstract isValid(payload: JwtPayload): boolean | HttpUser | undefined | Promise<boolean | HttpUser | undefined>;

  /**
   * The token a request carries: that of `Authorization: Bearer <token>`, or undefined. Override to accept
   * another place too, such as the `access_token` query parameter of a request a browser's `EventSource` makes
   * (it cannot send headers); the parameter is redacted in the request log.
   */
  protected tokenOf(request: HttpRequest): string | undefined {
    const header = request.header("authorization") ?? "";
    return /^bearer\s+([A-Za-z0-9._~+/-]+=*)\s*$/i.exec(header)?.[1];
  }

  /** Verifies the token and fills `request.user`, or throws `HttpUnauthorizedError`. */
  async check(request: HttpRequest): Promise<void> {
    const token = this.tokenOf(request);
    if (token === undefined) throw new HttpUnauthorizedError(this.challenge, HttpMessages.noBearerToken);
    let payload: JwtPayload;
    try {
      payload = await this.keyring.verify(token);
    } catch (error) {
      throw new HttpUnauthorizedError(`${this.challenge} error="invalid_token"`, HttpMessages.invalidBearerToken((error as Error).message));
    }
    const result = await this.isValid(payload);
    if (result === true) request.user = new HttpUser(typeof payload.sub === "string" ? payload.sub : "");
    else if (result instanceof HttpUser) request.user = result;
    else throw new HttpUnauthorizedError(`${this.challenge} error="invalid_token"`, HttpMessages.bearerTokenRefused);
  }
}
