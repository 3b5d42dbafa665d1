/**
 * The authenticated caller, filled by the authentication class into `request.user`.
 * `tenant` is copied whole into every log entry: it must hold an identifier only, never a connection string or a credential.
 */
export class HttpUser {
  /** The user name. */
  readonly username: string;
  /** The authorization areas the user holds; compared without case. */
  readonly areas: readonly string[];
  /** The tenant identifier ('' when none). */
  readonly tenant: string;
  readonly #lowerAreas: ReadonlySet<string>;

  /** @param username the user name. @param areas the areas held. @param tenant the tenant identifier. */
  constructor(username: string, areas: readonly string[] = [], tenant = "") {
    this.username = username;
    this.areas = Object.freeze([...areas]);
    this.tenant = tenant;
    this.#lowerAreas = new Set(areas.map((area) => area.toLowerCase()));
  }

  /** True when the user holds `area`, compared without case. */
  hasArea(area: string): boolean {
    return this.#lowerAreas.has(area.toLowerCase());
  }
}
