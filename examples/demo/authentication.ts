import { randomBytes } from "node:crypto";
import { BearerAuthentication, constantTimeEquals, HttpUser, JwtKeyring, type JwtPayload, type HttpRequest } from "tenon/http";
import type { DemoClaims } from "./claims.js";
import type { DemoContext } from "./demo-context.js";

/** A demo user: name, password, areas, tenant, and the claims its entities' policies read. */
interface DemoUser {
  readonly username: string;
  readonly password: string;
  readonly areas: readonly string[];
  readonly tenant: string;
  readonly claims?: DemoClaims;
}

/** The tenant of the seed data; `rival` works for a second tenant, which starts empty. */
export const demoTenants = { seeded: "north", second: "south" } as const;

const users: readonly DemoUser[] = [
  { username: "guest", password: "guest", areas: ["read"], tenant: demoTenants.seeded },
  { username: "editor", password: "editor", areas: ["read", "write"], tenant: demoTenants.seeded },
  { username: "admin", password: "admin", areas: ["read", "write", "admin"], tenant: demoTenants.seeded },
  { username: "rival", password: "rival", areas: ["read", "write"], tenant: demoTenants.second },
  // A sales user of one region: it sees and writes only that region's companies (docs/policies.md).
  { username: "sales", password: "sales", areas: ["read", "write"], tenant: demoTenants.seeded, claims: { region: "EU" } },
];

/** Tokens expire after 30 minutes. */
export const tokenLifetimeSeconds = 30 * 60;

let keyring: JwtKeyring | undefined;

/** The demo's signing keys: HS256 with `JWT_SECRET`, or a random secret made at start-up. */
export function demoKeyring(): JwtKeyring {
  keyring ??= new JwtKeyring().addHs256("demo", process.env.JWT_SECRET ?? randomBytes(32).toString("base64url"));
  return keyring;
}

/** Checks a user name and password in constant time; answers the user or undefined. */
export function findDemoUser(username: unknown, password: unknown): DemoUser | undefined {
  if (typeof username !== "string" || typeof password !== "string") return undefined;
  let found: DemoUser | undefined;
  for (const user of users) {
    const nameMatches = constantTimeEquals(user.username, username);
    const passwordMatches = constantTimeEquals(user.password, password);
    if (nameMatches && passwordMatches) found = user;
  }
  return found;
}

/** Issues a 30-minute bearer token for a user. */
export function issueDemoToken(user: DemoUser): Promise<string> {
  return demoKeyring().sign({ sub: user.username, areas: [...user.areas] }, { expiresIn: tokenLifetimeSeconds });
}

/** Bearer authentication of the demo: a valid token of a known user, with the areas it carries. */
export class DemoAuthentication extends BearerAuthentication<DemoContext> {
  protected get keyring(): JwtKeyring {
    return demoKeyring();
  }

  /**
   * The bearer token, or on a change stream (`GET .../changes`) the `access_token` parameter: a browser's
   * EventSource cannot send the header. Never elsewhere, where a token in an address would be copied around.
   */
  protected override tokenOf(request: HttpRequest): string | undefined {
    const fromHeader = super.tokenOf(request);
    if (fromHeader !== undefined || request.method !== "GET" || !request.path.endsWith("/changes")) return fromHeader;
    const token = request.param("access_token");
    return token !== undefined && /^[A-Za-z0-9._~+/-]+=*$/.test(token) ? token : undefined;
  }

  protected isValid(payload: JwtPayload): HttpUser<DemoClaims> | undefined {
    const user = users.find((candidate) => candidate.username === payload.sub);
    if (user === undefined) return undefined;
    return new HttpUser<DemoClaims>(user.username, user.areas, user.tenant, user.claims);
  }
}
