import { ClaimType, type ClaimsOf, declareClaims } from "tenon";

/**
 * What the demo's authentication may know of a caller besides its name, areas and tenant (docs/policies.md): a
 * sales user's `region`, which limits it to the companies of that region. The entities' policies name it.
 */
export const demoClaims = declareClaims({ region: ClaimType.string });

/** The demo caller's claims: `{ readonly region?: string }`. */
export type DemoClaims = ClaimsOf<typeof demoClaims>;
