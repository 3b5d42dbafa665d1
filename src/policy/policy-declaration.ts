import type { EntityClass } from "../mapping/column-type.js";
import type { Lazy } from "../mapping/lazy.js";
import { annotateClass } from "../mapping/metadata-store.js";
import { policyKey } from "../mapping/mapping-keys.js";
import type { CallerReferences, CallerValue, PolicyCaller } from "./caller.js";
import { ClaimsDeclaration } from "./claims.js";
import type { PolicyOperation } from "./policy-operation.js";
// The checks of a policy run when its entity is mapped: loading the decorator registers them.
import "./entity-policy.js";

/** The value a condition compares a member with: a reference compares its key. */
export type ComparedValue<V> = V extends Lazy<object> ? number : V;

/** One side of a comparison with a member of type `V`: a constant of its type, or a value of the caller. */
export type MemberOperand<V> = ComparedValue<NonNullable<V>> | CallerValue<ComparedValue<NonNullable<V>>>;

/**
 * What a row condition says about one member of type `V`: a value or a caller's value (`=`), `null` (`IS NULL`), or
 * an object of operators, all of which must hold: `{ "<=": "100000.00" }`, `{ "<>": null }` (`IS NOT NULL`),
 * `{ IN: ["EU", "US"] }`, `{ IN: caller.claims.regions }`, `{ LIKE: "A%" }` (text only).
 */
export type MemberTest<V> =
  | MemberOperand<V>
  | (null extends V ? null : never)
  | {
      readonly "="?: MemberOperand<V> | (null extends V ? null : never);
      readonly "<>"?: MemberOperand<V> | (null extends V ? null : never);
      readonly "<"?: MemberOperand<V>;
      readonly "<="?: MemberOperand<V>;
      readonly ">"?: MemberOperand<V>;
      readonly ">="?: MemberOperand<V>;
      readonly IN?: readonly ComparedValue<NonNullable<V>>[] | CallerValue<readonly ComparedValue<NonNullable<V>>[]>;
      readonly LIKE?: NonNullable<V> extends string ? string | CallerValue<string> : never;
    };

/** The members of `T` a condition can name: its fields (not its methods). */
export type PolicyMember<T> = { [K in keyof T]: T[K] extends (...args: never[]) => unknown ? never : K }[keyof T] & string;

/**
 * A condition on the row, as SQL would test it: each member named must meet its test (AND); `or` holds when one of
 * its conditions does, `not` when its condition does not. Member tests follow SQL: a comparison with NULL never
 * holds. `{ region: caller.claims.region, creditLimit: { "<=": "100000.00" } }`.
 */
export type RowCondition<T> = { readonly [K in PolicyMember<T>]?: MemberTest<T[K]> } & {
  /** Holds when at least one of the conditions holds. */
  readonly or?: readonly RowCondition<T>[];
  /** Holds when the condition does not. */
  readonly not?: RowCondition<T>;
};

/** Who a rule or a grant applies to: every caller unless it names areas or a test. */
export interface PolicyAudience<C extends object> {
  /** The areas the caller must hold, every one of them (compared without case); none: any caller. */
  readonly areas?: readonly string[];
  /** A test of the caller itself (its claims, its name), besides `areas`; runs once per caller and entity. */
  readonly when?: (caller: PolicyCaller<C>) => boolean;
}

/**
 * One rule of a policy: to the callers it applies to, it grants its operations on the rows its `rows` condition
 * selects (every row without one). The rules are alternatives: a caller may do on a row what any rule that applies
 * to it grants there. A rule whose conditions name a claim the caller lacks does not apply to that caller.
 */
export interface PolicyRule<T, C extends object> extends PolicyAudience<C> {
  /** The operations granted; default every one. */
  readonly operations?: readonly PolicyOperation[];
  /** The rows granted; default every row. An update or insert must leave the row meeting it too. */
  readonly rows?: RowCondition<T>;
  /** What a row inserted or updated under this rule must meet besides `rows` (a limit on the values written). */
  readonly check?: RowCondition<T>;
}

/** One grant of a member rule: to the callers it applies to, on the rows that meet `rows` (every row without one). */
export interface MemberGrant<T, C extends object> extends PolicyAudience<C> {
  /** The rows on which the grant holds: `{ username: caller.username }` (the caller's own row); default every row. */
  readonly rows?: RowCondition<T>;
}

/** Who may read and who may write one member; a member without a rule is read and written by every caller. */
export interface MemberPolicy<T, C extends object> {
  /** The grants of reading the member: one must hold, or the member is absent from the answer. Default: everyone. */
  readonly read?: MemberGrant<T, C> | readonly MemberGrant<T, C>[];
  /**
   * The grants of writing the member: one must hold, or a body naming it is refused (422). Default: the `read`
   * grants when `read` is given (what a caller cannot read it cannot write), else everyone.
   */
  readonly write?: MemberGrant<T, C> | readonly MemberGrant<T, C>[];
}

/** Values written from the caller, by member: a caller's value or a constant of the member's type. */
export type MemberValues<T> = { readonly [K in PolicyMember<T>]?: MemberOperand<T[K]> };

/**
 * The policy of an entity: its `rules` (who does what on which rows; none: every caller does everything on every
 * row), its `members` (who reads and writes which member, also depending on the row) and the values it `set`s from
 * the caller on insert and update (never written from a body).
 */
export interface PolicyDeclaration<T, C extends object> {
  /** The rules; absent: every operation on every row, for every caller. An empty list grants nothing. */
  readonly rules?: readonly PolicyRule<T, C>[];
  /** The members' read and write rules, by member. */
  readonly members?: { readonly [K in PolicyMember<T>]?: MemberPolicy<T, C> };
  /** The values written from the caller on insert and on update; such a member is never written from a body. */
  readonly set?: { readonly insert?: MemberValues<T>; readonly update?: MemberValues<T> };
}

/** What `@Policy` records: the claims declaration and the declaring function (or the declaration itself). @internal */
export interface PolicyRecord {
  readonly claims: ClaimsDeclaration<object> | undefined;
  readonly declare: ((caller: CallerReferences<Record<string, unknown>>) => unknown) | unknown;
}

/** A class decorator of an entity of type `T`. */
export type PolicyDecorator<T> = (value: EntityClass<T>, context: ClassDecoratorContext) => void;

/**
 * Declares who may see and change what of the entity (docs/policies.md): row rules per operation, member rules,
 * values set from the caller. The ORM applies it to every statement of a session that has a caller
 * (`Context.onGetCurrentCaller`): a row the caller may not read reads as absent, a member it may not read is left out
 * of every answer and refused in filters, a member it may not write is refused (422). `declare` receives references
 * to the caller's values (`caller.username`, `caller.claims.region`), checked when the entity is mapped.
 *
 * ```ts
 * @Policy<Company, DemoClaims>(demoClaims, (caller) => ({
 *   rules: [{ rows: { region: caller.claims.region } }, { when: (user) => user.claims.region === undefined }],
 * }))
 * ```
 */
export function Policy<T extends object, C extends object = Record<never, never>>(
  declare: PolicyDeclaration<T, C> | ((caller: CallerReferences<C>) => PolicyDeclaration<T, C>),
): PolicyDecorator<T>;
/** `@Policy` with the claims the caller may carry, which the rules may then name (`caller.claims.<name>`). */
export function Policy<T extends object, C extends object>(
  claims: ClaimsDeclaration<C>,
  declare: PolicyDeclaration<T, C> | ((caller: CallerReferences<C>) => PolicyDeclaration<T, C>),
): PolicyDecorator<T>;
export function Policy(first: unknown, second?: unknown): PolicyDecorator<object> {
  const record: PolicyRecord =
    first instanceof ClaimsDeclaration ? { claims: first, declare: second } : { claims: undefined, declare: first };
  return (_value, context) => annotateClass(context, policyKey, record);
}
