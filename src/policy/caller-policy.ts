import type { Condition } from "../filter/condition.js";
import { conditionHolds } from "../filter/condition-match.js";
import type { ColumnMapping } from "../mapping/entity-mapping.js";
import { Lazy } from "../mapping/lazy.js";
import { CallerValueReference, holdsArea, type PolicyCaller } from "./caller.js";
import type { Audience, ConditionTemplate, EntityPolicy, MemberGrantTemplate, SetValueTemplate } from "./entity-policy.js";
import type { PolicyOperation } from "./policy-operation.js";

/** The condition no row meets (an empty OR): what a caller gets for an operation no rule grants it. */
export const noRows: Condition = Object.freeze({ kind: "or", conditions: Object.freeze([]) as readonly Condition[] });

/** How a member reads or writes for one caller: on every row, on none, or on the rows that meet a condition. */
export type MemberAccess = "always" | "never" | Condition;

/** A member the caller reads or writes on some rows only. */
export interface ConditionalMember {
  /** The member's column. */
  readonly column: ColumnMapping;
  /** The rows on which it may. */
  readonly condition: Condition;
}

/** One alternative a written row may meet (one rule's `rows` and `check`), as the parts that must each hold. */
export interface WriteAlternative {
  /** The parts: the items of the rule's `rows` and `check`. */
  readonly parts: readonly Condition[];
}

/** A value of a row: the entity's field, a reference as its key. */
export type RowValues = (column: ColumnMapping) => unknown;

/** The values of an entity's row, as conditions compare them (a reference by its key). */
export function entityValues(entity: object): RowValues {
  return (column) => {
    const value = column.get(entity);
    if (column.type.kind === "lazy") return value instanceof Lazy ? value.id : null;
    return value === undefined ? null : value;
  };
}

/**
 * An entity's policy as it applies to one caller: which rules and grants apply to it (its areas, its `when`, the
 * claims their conditions name), with the caller's values put into their conditions. Built once per session and
 * entity; everything the session, the JSON writer, the filter body and the change feed decide about the caller
 * they ask here.
 */
export class CallerPolicy {
  /** The entity's policy. */
  readonly policy: EntityPolicy;
  /** The caller. */
  readonly caller: PolicyCaller;
  /** The members the caller reads on no row. */
  readonly hidden: ReadonlySet<ColumnMapping>;
  /** The same, as a list. */
  readonly hiddenList: readonly ColumnMapping[];
  /** The members the caller reads on some rows only. */
  readonly conditional: readonly ConditionalMember[];
  /** The members the caller writes on no row (those the policy sets included). */
  readonly notWritable: ReadonlySet<ColumnMapping>;
  /** The same, as a list. */
  readonly notWritableList: readonly ColumnMapping[];
  /** The members the caller writes on some rows only. */
  readonly conditionalWrites: readonly ConditionalMember[];
  /** What the layers above work out once per caller policy (the conditions of an update's rules, by key). */
  readonly memo = new Map<string, unknown>();
  readonly #rows = new Map<PolicyOperation, Condition | undefined>();
  readonly #checks = new Map<PolicyOperation, readonly WriteAlternative[] | undefined>();
  readonly #audiences = new Map<Audience, boolean>();

  /** @param policy the entity's checked policy. @param caller the session's caller. */
  constructor(policy: EntityPolicy, caller: PolicyCaller) {
    this.policy = policy;
    this.caller = caller;
    const hidden = new Set<ColumnMapping>();
    const notWritable = new Set<ColumnMapping>(policy.setColumns);
    const conditional: ConditionalMember[] = [];
    const conditionalWrites: ConditionalMember[] = [];
    for (const rule of policy.members) {
      const read = this.#access(rule.read);
      if (read === "never") hidden.add(rule.column);
      else if (read !== "always") conditional.push({ column: rule.column, condition: read });
      if (notWritable.has(rule.column)) continue;
      const write = this.#access(rule.write);
      if (write === "never") notWritable.add(rule.column);
      else if (write !== "always") conditionalWrites.push({ column: rule.column, condition: write });
    }
    this.hidden = hidden;
    this.hiddenList = [...hidden];
    this.conditional = conditional;
    this.notWritable = notWritable;
    this.notWritableList = [...notWritable];
    this.conditionalWrites = conditionalWrites;
  }

  /** Whether the caller reads the member on every row (only such a member may be filtered or ordered by). */
  readsAlways(column: ColumnMapping): boolean {
    return !this.hidden.has(column) && !this.conditional.some((member) => member.column === column);
  }

  /** The members the caller may not read on the row `values` gives (none, most of the time). */
  hiddenOn(values: RowValues): ColumnMapping[] {
    const out = [...this.hidden];
    for (const member of this.conditional) if (!conditionHolds(member.condition, values)) out.push(member.column);
    return out;
  }

  /** The members the caller may not write on the row `values` gives (before the write: the stored row). */
  notWritableOn(values: RowValues): ColumnMapping[] {
    const out = [...this.notWritable];
    for (const member of this.conditionalWrites) if (!conditionHolds(member.condition, values)) out.push(member.column);
    return out;
  }

  /** Whether a rule grants the caller `operation` at all (an entity without rules grants every operation). */
  grants(operation: PolicyOperation): boolean {
    return this.rows(operation) !== noRows;
  }

  /**
   * The condition the rows of `operation` must meet for this caller: undefined for every row, `noRows` when no rule
   * grants it the operation, else the OR of the `rows` of the rules that grant it.
   */
  rows(operation: PolicyOperation): Condition | undefined {
    if (this.#rows.has(operation)) return this.#rows.get(operation);
    const rules = this.policy.rules;
    let condition: Condition | undefined;
    if (rules !== undefined) {
      const granted: Condition[] = [];
      let every = false;
      for (const rule of rules) {
        if (!rule.operations.has(operation) || !this.applies(rule.audience)) continue;
        if (rule.rows === undefined) every = true;
        else granted.push(this.resolve(rule.rows));
      }
      condition = every
        ? undefined
        : granted.length === 0
          ? noRows
          : granted.length === 1
            ? granted[0]
            : { kind: "or", conditions: granted };
    }
    this.#rows.set(operation, condition);
    return condition;
  }

  /**
   * The members whose values make a row written by `operation` (insert, update) one the caller may not write: empty
   * when the row meets one rule that grants the operation (its `rows` and its `check`); otherwise the members named
   * by the failing parts of each such rule.
   */
  refusedValues(operation: "insert" | "update", values: RowValues): ColumnMapping[] {
    const alternatives = this.writeAlternatives(operation);
    if (alternatives === undefined) return [];
    const refused = new Set<ColumnMapping>();
    for (const alternative of alternatives) {
      const failing = alternative.parts.filter((part) => !conditionHolds(part, values));
      if (failing.length === 0) return [];
      for (const part of failing) for (const column of columnsOf(part)) refused.add(column);
    }
    return [...refused];
  }

  /** The values the policy sets on `operation`, from this caller; undefined for a value of a claim the caller lacks. */
  setValues(operation: "insert" | "update"): readonly { readonly column: ColumnMapping; readonly value: unknown }[] {
    const templates: readonly SetValueTemplate[] = operation === "insert" ? this.policy.setOnInsert : this.policy.setOnUpdate;
    return templates.map((template) => ({ column: template.column, value: this.#value(template.value) }));
  }

  /** Whether a rule's or grant's audience takes in this caller. */
  applies(audience: Audience): boolean {
    let applies = this.#audiences.get(audience);
    if (applies === undefined) {
      applies =
        audience.areas.every((area) => holdsArea(this.caller, area)) &&
        audience.claims.every((claim) => this.#hasClaim(claim)) &&
        (audience.when === undefined || audience.when(this.caller) === true);
      this.#audiences.set(audience, applies);
    }
    return applies;
  }

  /** A template with the caller's values in it (every claim it names is one the caller has). */
  resolve(template: ConditionTemplate): Condition {
    switch (template.kind) {
      case "compare":
        return { kind: "compare", column: template.column, operator: template.operator, value: this.#value(template.value) };
      case "null":
        return template;
      case "in":
        return {
          kind: "in",
          column: template.column,
          values: template.values instanceof CallerValueReference ? (this.#value(template.values) as readonly unknown[]) : template.values,
        };
      case "and":
      case "or":
        return { kind: template.kind, conditions: template.conditions.map((each) => this.resolve(each)) };
      case "not":
        return { kind: "not", condition: this.resolve(template.condition) };
    }
  }

  /**
   * The alternatives a row written by `operation` must meet one of: per rule that grants the caller the operation,
   * its `rows` and `check`; undefined when such a rule has neither (the row is not checked).
   */
  writeAlternatives(operation: "insert" | "update"): readonly WriteAlternative[] | undefined {
    if (this.#checks.has(operation)) return this.#checks.get(operation);
    const rules = this.policy.rules;
    let alternatives: WriteAlternative[] | undefined;
    if (rules !== undefined) {
      alternatives = [];
      for (const rule of rules) {
        if (!rule.operations.has(operation) || !this.applies(rule.audience)) continue;
        const parts = [rule.rows, rule.check].flatMap((template) => (template === undefined ? [] : partsOf(this.resolve(template))));
        if (parts.length === 0) {
          alternatives = undefined;
          break;
        }
        alternatives.push({ parts });
      }
    }
    this.#checks.set(operation, alternatives);
    return alternatives;
  }

  /** How the grants of a member rule apply to the caller: undefined grants are everyone's. */
  #access(grants: readonly MemberGrantTemplate[] | undefined): MemberAccess {
    if (grants === undefined) return "always";
    const conditions: Condition[] = [];
    for (const grant of grants) {
      if (!this.applies(grant.audience)) continue;
      if (grant.rows === undefined) return "always";
      conditions.push(this.resolve(grant.rows));
    }
    if (conditions.length === 0) return "never";
    return conditions.length === 1 ? conditions[0] : { kind: "or", conditions };
  }

  #hasClaim(claim: string): boolean {
    const type = this.policy.claims?.types.get(claim);
    const claims = this.caller.claims as Readonly<Record<string, unknown>> | undefined;
    if (type === undefined || claims === undefined || !Object.hasOwn(claims, claim)) return false;
    return type.accepts(claims[claim]);
  }

  #value(operand: unknown): unknown {
    if (!(operand instanceof CallerValueReference)) return operand;
    if (operand.claim !== undefined && !this.#hasClaim(operand.claim)) return undefined;
    return operand.of(this.caller);
  }
}

/** The parts of a condition that must each hold: an AND's items, else the condition itself. */
function partsOf(condition: Condition): readonly Condition[] {
  return condition.kind === "and" ? condition.conditions : [condition];
}

/** The columns a condition names. */
export function columnsOf(condition: Condition): ColumnMapping[] {
  switch (condition.kind) {
    case "and":
    case "or":
      return condition.conditions.flatMap(columnsOf);
    case "not":
      return columnsOf(condition.condition);
    case "sql":
      return [];
    default:
      return [condition.column];
  }
}

/** The callers' policies of each entity, by what decides them (`callerKey`): worked out once, shared by sessions. */
const byCaller = new WeakMap<EntityPolicy, Map<string, CallerPolicy>>();
/** How many callers' policies an entity keeps before it starts again (a bound, not a working set one would reach). */
const maxCallers = 1_000;

/**
 * What decides a caller's view of a policy: its name, areas (without case, in any order), tenant and claims. Two
 * caller objects with the same key get the same `CallerPolicy` (a rule's `when` must depend on these alone).
 */
export function callerKey(caller: PolicyCaller): string {
  const areas = caller.areas.map((area) => area.toLowerCase()).sort();
  const claims = JSON.stringify(caller.claims ?? {}, (_, value: unknown) => (typeof value === "bigint" ? `${value}n` : value));
  return JSON.stringify([caller.username, caller.tenant, areas]) + claims;
}

/**
 * The policy of an entity as it applies to a caller whose `callerKey` is `key`: the one already worked out for that
 * key, or a new one, kept. Sharing it keeps its conditions the same objects, so that the statements rendered for
 * them are rendered once (`EntityStatements` keeps them by condition).
 */
export function callerPolicyOf(policy: EntityPolicy, caller: PolicyCaller, key: string): CallerPolicy {
  let callers = byCaller.get(policy);
  if (callers === undefined) byCaller.set(policy, (callers = new Map()));
  let view = callers.get(key);
  if (view === undefined) {
    if (callers.size >= maxCallers) callers.clear();
    view = new CallerPolicy(policy, caller);
    callers.set(key, view);
  }
  return view;
}
