/** The claims of a user the authentication gave none: one frozen empty record, shared. */
const noClaims: Readonly<Record<string, never>> = Object.freeze({});

/**
 * The authenticated caller, filled by the authentication class into `request.user`.
 * `tenant` is copied whole into every log entry: it must hold an identifier only, never a connection string or a credential.
 * `Claims` is the record of what else the authentication knows of the caller (a region, a manager's id), which
 * entity policies may name (docs/policies.md); claims are never logged.
 */
export class HttpUser<Claims extends object = Readonly<Record<string, unknown>>> {
  /** The user name. */
  readonly username: string;
  /** The authorization areas the user holds; compared without case. */
  readonly areas: readonly string[];
  /** The tenant identifier ('' when none). */
  readonly tenant: string;
  /** The caller's claims, as the authentication filled them (a frozen copy); a claim the caller lacks is absent. */
  readonly claims: Readonly<Claims>;
  readonly #lowerAreas: ReadonlySet<string>;

  /**
   * @param username the user name. @param areas the areas held. @param tenant the tenant identifier.
   * @param claims the caller's claims (none by default).
   */
  constructor(username: string, areas: readonly string[] = [], tenant = "", claims?: Claims) {
    this.username = username;
    this.areas = Object.freeze([...areas]);
    this.tenant = tenant;
    this.claims = (claims === undefined ? noClaims : Object.freeze({ ...claims })) as Readonly<Claims>;
    this.#lowerAreas = new Set(areas.map((area) => area.toLowerCase()));
  }

  /** True when the user holds `area`, compared without case. */
  hasArea(area: string): boolean {
    return this.#lowerAreas.has(area.toLowerCase());
  }
}
