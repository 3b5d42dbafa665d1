import { HttpUnauthorizedError } from "../exchange/http-errors.js";
import type { HttpRequest } from "../exchange/http-request.js";
import { HttpDefaults } from "../exchange/http-messages.js";
import { HttpUser } from "../exchange/http-user.js";
import { HttpAuthentication } from "./http-authentication.js";
import { HttpMessages } from "../exchange/http-messages.js";

/**
 * HTTP Basic authentication (RFC 7617). Reads `Authorization: Basic <base64(user:password)>` and asks
 * `isValid`. Compare passwords with `constantTimeEquals` (or a password hash's own verify function).
 */
export abstract class BasicAuthentication<C> extends HttpAuthentication<C> {
  /** The realm named in the challenge. */
  protected get realm(): string {
    return HttpDefaults.basicRealm;
  }

  /** `Basic realm="<realm>", charset="UTF-8"`. */
  override get challenge(): string {
    return `Basic realm="${this.realm}", charset="UTF-8"`;
  }

  /**
   * Decides whether the credentials are valid: `false` (or undefined) refuses with 401, `true` accepts a
   * user with this name and no areas, an `HttpUser` accepts that user (with its areas and tenant).
   */
  protected abstract isValid(username: string, password: string): boolean | HttpUser | undefined | Promise<boolean | HttpUser | undefined>;

  /** Reads the credentials and fills `request.user`, or throws `HttpUnauthorizedError`. */
  async check(request: HttpRequest): Promise<void> {
    const header = request.header("authorization") ?? "";
    const match = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
    if (match === null) throw new HttpUnauthorizedError(this.challenge, HttpMessages.noBasicCredentials);
    const decoded = Buffer.from(match[1], "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) throw new HttpUnauthorizedError(this.challenge, HttpMessages.malformedBasicCredentials);
    const username = decoded.slice(0, colon);
    const result = await this.isValid(username, decoded.slice(colon + 1));
    if (result === true) request.user = new HttpUser(username);
    else if (result instanceof HttpUser) request.user = result;
    else throw new HttpUnauthorizedError(this.challenge, HttpMessages.invalidBasicCredentials);
  }
}
