declare const callerValueBrand: unique symbol;

/**
 * The caller a policy decides for: who it is, the areas it holds (compared without case), its tenant, and the
 * claims its authentication filled. `HttpUser` is one; an application that reads entities on behalf of someone
 * outside HTTP builds one itself.
 */
export interface PolicyCaller<C extends object = object> {
  /** The user name. */
  readonly username: string;
  /** The areas (roles) the caller holds. */
  readonly areas: readonly string[];
  /** The caller's tenant ('' when none). */
  readonly tenant: string;
  /** The caller's claims; a claim it does not carry is absent. */
  readonly claims: Readonly<C>;
}

/**
 * A value of the caller that a policy names (`caller.username`, `caller.claims.region`): written once in the entity's
 * policy, read from each session's caller when its statements are built. `V` is the value's type.
 */
export interface CallerValue<V> {
  /** Phantom member carrying the value's type; never set at run time. */
  readonly [callerValueBrand]: (value: V) => V;
  /** Where the value comes from: `username`, `tenant`, or `claims.<name>`. */
  readonly source: string;
}

/**
 * What a policy's declaring function receives: the caller's values, by reference. Each is a `CallerValue` that a
 * row condition compares a member with (`{ region: caller.claims.region }` is `region = <the caller's region>`).
 */
export interface CallerReferences<C extends object> {
  /** The caller's user name. */
  readonly username: CallerValue<string>;
  /** The caller's tenant. */
  readonly tenant: CallerValue<string>;
  /** The caller's claims, each by its declared type. */
  readonly claims: { readonly [K in keyof C]-?: CallerValue<Exclude<C[K], undefined>> };
}

/** A `CallerValue` as the policy keeps it: where the value comes from, and how to read it of a caller. */
export class CallerValueReference {
  /** `username`, `tenant`, or `claims.<name>`. */
  readonly source: string;
  /** The claim's name, for a claim. */
  readonly claim: string | undefined;

  constructor(source: "username" | "tenant" | "claim", claim?: string) {
    this.source = source === "claim" ? `claims.${claim}` : source;
    this.claim = claim;
  }

  /** The caller's value; undefined when the caller lacks the claim. */
  of(caller: PolicyCaller): unknown {
    if (this.claim === undefined) return this.source === "username" ? caller.username : caller.tenant;
    const claims = caller.claims as Readonly<Record<string, unknown>> | undefined;
    return claims !== undefined && Object.hasOwn(claims, this.claim) ? claims[this.claim] : undefined;
  }
}

/** The references a declaring function receives: any claim name answers a reference, checked when the entity is mapped. @internal */
export function callerReferences(): CallerReferences<Record<string, unknown>> {
  const claims = new Proxy({} as Record<string, CallerValueReference>, {
    get: (cache, name) => {
      if (typeof name !== "string") return undefined;
      cache[name] ??= new CallerValueReference("claim", name);
      return cache[name];
    },
  });
  return {
    username: new CallerValueReference("username") as unknown as CallerValue<string>,
    tenant: new CallerValueReference("tenant") as unknown as CallerValue<string>,
    claims: claims as unknown as CallerReferences<Record<string, unknown>>["claims"],
  };
}

/** Whether the caller holds `area`, compared without case. @internal */
export function holdsArea(caller: PolicyCaller, area: string): boolean {
  const wanted = area.toLowerCase();
  for (const held of caller.areas) if (held.toLowerCase() === wanted) return true;
  return false;
}
