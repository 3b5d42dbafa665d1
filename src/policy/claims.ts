import { TenonError } from "../errors.js";
import type { ColumnKind } from "../mapping/column-type.js";
import { isDecimalText } from "../values/decimal-text.js";
import { PolicyMessages } from "./policy-messages.js";

declare const claimValueBrand: unique symbol;

/**
 * The declared type of one claim of a caller (`ClaimType.string`, `ClaimType.list(ClaimType.string)`): what a
 * policy may compare it with. `V` is its TypeScript type.
 */
export class ClaimType<V> {
  /** Phantom member carrying the claim's value type; never set at run time. */
  declare readonly [claimValueBrand]: () => V;
  /** The column kinds a value of the claim compares with. */
  readonly kinds: readonly ColumnKind[];
  /** Whether the claim is a list of such values (only `IN` compares with it). */
  readonly list: boolean;
  /** The name of the type, as messages show it. */
  readonly name: string;
  readonly #accepts: (value: unknown) => boolean;

  /** @internal use the `ClaimType` constants. */
  constructor(name: string, kinds: readonly ColumnKind[], accepts: (value: unknown) => boolean, list = false) {
    this.name = name;
    this.kinds = kinds;
    this.list = list;
    this.#accepts = accepts;
  }

  /**
   * Whether a caller's claim holds a value of this type. A claim of another type (an authentication that filled
   * a number for a text claim) counts as absent, so the rules naming it grant nothing.
   */
  accepts(value: unknown): boolean {
    return this.#accepts(value);
  }

  /** A claim of text: compares with text columns. */
  static readonly string: ClaimType<string> = new ClaimType<string>("string", ["string"], (value) => typeof value === "string");
  /**
   * A claim of a whole number: compares with `int32` columns and references (a reference compares its key), and
   * with `float` columns.
   */
  static readonly int32: ClaimType<number> = new ClaimType<number>("int32", ["int32", "lazy", "float"], (value) => Number.isInteger(value));
  /** A claim of a 64-bit integer, as a bigint: compares with `int64` columns. */
  static readonly int64: ClaimType<bigint> = new ClaimType<bigint>("int64", ["int64"], (value) => typeof value === "bigint");
  /** A claim of an exact decimal, as its text (`"100000.00"`): compares with `decimal` columns. */
  static readonly decimal: ClaimType<string> = new ClaimType<string>("decimal", ["decimal"], (value) =>
    typeof value === "string" ? isDecimalText(value) : false,
  );
  /** A claim of a boolean. */
  static readonly boolean: ClaimType<boolean> = new ClaimType<boolean>("boolean", ["boolean"], (value) => typeof value === "boolean");
  /** A claim of a point in time. */
  static readonly date: ClaimType<Date> = new ClaimType<Date>("date", ["date"], (value) =>
    value instanceof Date ? !Number.isNaN(value.getTime()) : false,
  );

  /** A claim holding a list of values of `item`: a row condition compares a column with it by `IN`. */
  static list<V>(item: ClaimType<V>): ClaimType<readonly V[]> {
    if (item.list) throw new TenonError(PolicyMessages.badClaimType(`list(${item.name})`));
    const accepts = (value: unknown): boolean => Array.isArray(value) && value.every((each) => item.accepts(each));
    return new ClaimType<readonly V[]>(`list(${item.name})`, item.kinds, accepts, true);
  }
}

/** The claim types of a claims declaration, by claim name. */
export type ClaimTypes = Readonly<Record<string, ClaimType<unknown>>>;

/** The claims record a declaration describes: each claim optional (a caller may lack it), typed by its `ClaimType`. */
export type ClaimsRecord<D extends ClaimTypes> = { readonly [K in keyof D]?: D[K] extends ClaimType<infer V> ? V : never };

/**
 * The claims a caller may carry, declared once for an application (`declareClaims`): the authentication class fills
 * them (`new HttpUser(name, areas, tenant, { region: "EU" })`), and a `@Policy` given the declaration may name them.
 * A policy naming a claim the declaration lacks, or comparing a claim with a column of another type, is refused
 * when the entity is mapped.
 */
export class ClaimsDeclaration<C extends object> {
  /** Phantom member carrying the claims record's type; never set at run time. */
  declare readonly [claimValueBrand]: () => C;
  /** The declared claims, by name. */
  readonly types: ReadonlyMap<string, ClaimType<unknown>>;

  /** @internal use `declareClaims`. */
  constructor(types: ClaimTypes) {
    const map = new Map<string, ClaimType<unknown>>();
    for (const [name, type] of Object.entries(types)) {
      if (!(type instanceof ClaimType)) throw new TenonError(PolicyMessages.badClaimType(name));
      map.set(name, type);
    }
    this.types = map;
  }
}

/** The claims record of a declaration: `ClaimsOf<typeof demoClaims>` is `{ readonly region?: string }`. */
export type ClaimsOf<D> = D extends ClaimsDeclaration<infer C> ? C : never;

/**
 * Declares the claims a caller may carry, by name and type: `declareClaims({ region: ClaimType.string })`. Each
 * claim is optional on a caller; a rule whose conditions name a claim the caller lacks grants that caller nothing.
 */
export function declareClaims<D extends ClaimTypes>(types: D): ClaimsDeclaration<ClaimsRecord<D>> {
  return new ClaimsDeclaration<ClaimsRecord<D>>(types);
}
