import { MappingError } from "../errors.js";
import type { ComparisonOperator } from "../filter/condition.js";
import type { ColumnMapping, EntityMapping, PlanSource } from "../mapping/entity-mapping.js";
import { planPerMapping } from "../mapping/entity-mapping.js";
import { policyKey } from "../mapping/mapping-keys.js";
import { MappingMessages } from "../mapping/mapping-messages.js";
import { isDecimalText } from "../values/decimal-text.js";
import { CallerValueReference, callerReferences, type PolicyCaller } from "./caller.js";
import type { ClaimsDeclaration, ClaimType } from "./claims.js";
import type { PolicyRecord } from "./policy-declaration.js";
import { type PolicyOperation, policyOperations } from "./policy-operation.js";
import { PolicyMessages } from "./policy-messages.js";

/**
 * A row condition as the policy keeps it: the tree of a filter's condition whose values may be references to the
 * caller's values, resolved per caller (`CallerPolicy.resolve`).
 */
export type ConditionTemplate =
  | { readonly kind: "compare"; readonly column: ColumnMapping; readonly operator: ComparisonOperator; readonly value: unknown }
  | { readonly kind: "null"; readonly column: ColumnMapping; readonly negated: boolean }
  | { readonly kind: "in"; readonly column: ColumnMapping; readonly values: readonly unknown[] | CallerValueReference }
  | { readonly kind: "and" | "or"; readonly conditions: readonly ConditionTemplate[] }
  | { readonly kind: "not"; readonly condition: ConditionTemplate };

/** Who a rule or grant applies to, checked. */
export interface Audience {
  /** The areas, lower-cased; the caller must hold each. */
  readonly areas: readonly string[];
  /** The test of the caller, when given. */
  readonly when: ((caller: PolicyCaller) => boolean) | undefined;
  /** The claims its conditions name: a caller lacking one of them is not in the audience. */
  readonly claims: readonly string[];
}

/** A rule, checked. */
export interface PolicyRuleTemplate {
  readonly audience: Audience;
  readonly operations: ReadonlySet<PolicyOperation>;
  readonly rows: ConditionTemplate | undefined;
  readonly check: ConditionTemplate | undefined;
}

/** A grant of a member rule, checked. */
export interface MemberGrantTemplate {
  readonly audience: Audience;
  readonly rows: ConditionTemplate | undefined;
}

/** The read and write grants of one member (undefined: everyone). */
export interface MemberRuleTemplate {
  readonly column: ColumnMapping;
  readonly read: readonly MemberGrantTemplate[] | undefined;
  readonly write: readonly MemberGrantTemplate[] | undefined;
}

/** A value the policy sets from the caller: a caller's value or a constant. */
export interface SetValueTemplate {
  readonly column: ColumnMapping;
  readonly value: unknown;
  /** The claim it reads, when it reads one. */
  readonly claim: string | undefined;
}

/**
 * The checked policy of one entity, built when the entity is mapped (a policy naming an unknown member, a member of
 * the wrong type or an undeclared claim refuses the class with `MappingError`).
 */
export class EntityPolicy {
  /** The entity's mapping. */
  readonly mapping: EntityMapping;
  /** The rules; undefined: every operation on every row. */
  readonly rules: readonly PolicyRuleTemplate[] | undefined;
  /** The member rules. */
  readonly members: readonly MemberRuleTemplate[];
  /** The values set on insert. */
  readonly setOnInsert: readonly SetValueTemplate[];
  /** The values set on update. */
  readonly setOnUpdate: readonly SetValueTemplate[];
  /** The columns a body never writes: those the policy sets. */
  readonly setColumns: ReadonlySet<ColumnMapping>;
  /** Every column a condition names (for those who must be able to evaluate them, such as the change feed). */
  readonly conditionColumns: ReadonlySet<ColumnMapping>;
  /** The claims the caller may carry, when the policy was given them. */
  readonly claims: ClaimsDeclaration<object> | undefined;

  /** @internal use `entityPolicyOf`. */
  constructor(mapping: EntityMapping, record: PolicyRecord) {
    this.mapping = mapping;
    this.claims = record.claims;
    const compiler = new PolicyCompiler(mapping, record.claims);
    const declared = typeof record.declare === "function" ? record.declare(callerReferences()) : record.declare;
    const root = compiler.object(declared, "the policy", ["rules", "members", "set"]);
    this.rules =
      root.rules === undefined ? undefined : compiler.list(root.rules, "the policy's rules").map((rule, i) => compiler.rule(rule, i));
    const members: MemberRuleTemplate[] = [];
    if (root.members !== undefined) {
      const byMember = compiler.object(root.members, "the policy's members");
      for (const [name, value] of Object.entries(byMember)) members.push(compiler.memberRule(name, value));
    }
    this.members = members;
    const set = root.set === undefined ? {} : compiler.object(root.set, "the policy's set", ["insert", "update"]);
    this.setOnInsert = set.insert === undefined ? [] : compiler.setValues(set.insert, "insert");
    this.setOnUpdate = set.update === undefined ? [] : compiler.setValues(set.update, "update");
    this.setColumns = new Set([...this.setOnInsert, ...this.setOnUpdate].map((value) => value.column));
    this.conditionColumns = compiler.namedColumns;
  }
}

/** Compiles the parts of one declaration, failing with `MappingError` at the first problem. */
class PolicyCompiler {
  readonly namedColumns = new Set<ColumnMapping>();
  readonly #mapping: EntityMapping;
  readonly #claims: ClaimsDeclaration<object> | undefined;

  constructor(mapping: EntityMapping, claims: ClaimsDeclaration<object> | undefined) {
    this.#mapping = mapping;
    this.#claims = claims;
  }

  fail(problem: string): never {
    throw new MappingError(MappingMessages.invalidEntity(this.#mapping.name, problem));
  }

  /** A plain object of settings; with `keys`, any other setting is refused (a typo is not silently ignored). */
  object(value: unknown, where: string, keys?: readonly string[]): Record<string, unknown> {
    if (typeof value !== "object" || value === null || Array.isArray(value)) this.fail(PolicyMessages.notAnObject);
    const object = value as Record<string, unknown>;
    if (keys !== undefined)
      for (const key of Object.keys(object)) if (!keys.includes(key)) this.fail(PolicyMessages.unknownKey(where, key));
    return object;
  }

  list(value: unknown, where: string): readonly unknown[] {
    if (!Array.isArray(value)) this.fail(PolicyMessages.unknownKey(where, String(value)));
    return value as readonly unknown[];
  }

  rule(value: unknown, index: number): PolicyRuleTemplate {
    const where = `rule ${index + 1}`;
    const rule = this.object(value, where, ["areas", "when", "operations", "rows", "check"]);
    const claims = new Set<string>();
    const operations = new Set<PolicyOperation>();
    if (rule.operations === undefined) for (const operation of policyOperations) operations.add(operation);
    else
      for (const operation of this.list(rule.operations, `${where}.operations`)) {
        if (!policyOperations.includes(operation as PolicyOperation)) this.fail(PolicyMessages.unknownOperation(String(operation)));
        operations.add(operation as PolicyOperation);
      }
    const rows = rule.rows === undefined ? undefined : this.condition(rule.rows, `${where}.rows`, claims);
    const check = rule.check === undefined ? undefined : this.condition(rule.check, `${where}.check`, claims);
    return { audience: this.audience(rule, where, claims), operations, rows, check };
  }

  memberRule(name: string, value: unknown): MemberRuleTemplate {
    const where = `the rule of member ${name}`;
    const column = this.#mapping.column(name) ?? this.fail(PolicyMessages.unknownMember("the policy's members", name));
    if (column.isPrimaryKey || column.isVersion || column.isTenant) this.fail(PolicyMessages.protectedMember("the policy's members", name));
    const rule = this.object(value, where, ["read", "write"]);
    const grants = (list: unknown, kind: string): readonly MemberGrantTemplate[] | undefined => {
      if (list === undefined) return undefined;
      const items = Array.isArray(list) ? list : [list];
      return items.map((item, i) => {
        const grantWhere = `${where}, ${kind} grant ${i + 1}`;
        const grant = this.object(item, grantWhere, ["areas", "when", "rows"]);
        const claims = new Set<string>();
        const rows = grant.rows === undefined ? undefined : this.condition(grant.rows, `${grantWhere}.rows`, claims);
        return { audience: this.audience(grant, grantWhere, claims), rows };
      });
    };
    const read = grants(rule.read, "read");
    const written = grants(rule.write, "write");
    if (written !== undefined && column.isJoined) this.fail(PolicyMessages.memberNotOwn(where, name));
    return { column, read, write: written ?? read };
  }

  setValues(value: unknown, operation: string): readonly SetValueTemplate[] {
    const where = `the policy's set.${operation}`;
    const values = this.object(value, where);
    return Object.entries(values).map(([name, operand]) => {
      const column = this.#mapping.column(name) ?? this.fail(PolicyMessages.unknownMember(where, name));
      if (column.isJoined) this.fail(PolicyMessages.memberNotOwn(where, name));
      if (column.isPrimaryKey || column.isVersion || column.isTenant || column.auditRole !== undefined)
        this.fail(PolicyMessages.protectedMember(where, name));
      const claims = new Set<string>();
      this.operand(column, operand, where, claims, false);
      return { column, value: operand, claim: [...claims][0] };
    });
  }

  audience(settings: Record<string, unknown>, where: string, claims: ReadonlySet<string>): Audience {
    const areas = settings.areas;
    if (areas !== undefined && (!Array.isArray(areas) || areas.some((area) => typeof area !== "string")))
      this.fail(PolicyMessages.notAreas(where));
    const when = settings.when;
    if (when !== undefined && typeof when !== "function") this.fail(PolicyMessages.notAFunction(where));
    return {
      areas: ((areas as string[] | undefined) ?? []).map((area) => area.toLowerCase()),
      when: when as ((caller: PolicyCaller) => boolean) | undefined,
      claims: [...claims],
    };
  }

  /** A row condition: its members ANDed, `or` and `not` groups. */
  condition(value: unknown, where: string, claims: Set<string>): ConditionTemplate {
    const object = this.object(value, where);
    const parts: ConditionTemplate[] = [];
    for (const [key, test] of Object.entries(object)) {
      if (key === "or") {
        const items = this.list(test, `${where}.or`);
        if (items.length === 0) this.fail(PolicyMessages.emptyGroup(where, "or"));
        parts.push({ kind: "or", conditions: items.map((item) => this.condition(item, `${where}.or`, claims)) });
      } else if (key === "not") {
        parts.push({ kind: "not", condition: this.condition(test, `${where}.not`, claims) });
      } else {
        const column = this.#mapping.column(key) ?? this.fail(PolicyMessages.unknownMember(where, key));
        this.namedColumns.add(column);
        parts.push(...this.test(column, test, where, claims));
      }
    }
    if (parts.length === 0) this.fail(PolicyMessages.emptyGroup(where, "and"));
    return parts.length === 1 ? parts[0] : { kind: "and", conditions: parts };
  }

  /** The test of one member: a value (`=`), null (`IS NULL`), or an object of operators. */
  test(column: ColumnMapping, test: unknown, where: string, claims: Set<string>): ConditionTemplate[] {
    if (test === null) return [{ kind: "null", column, negated: false }];
    if (!isOperatorObject(test)) {
      this.operand(column, test, where, claims, false);
      return [{ kind: "compare", column, operator: "=", value: test }];
    }
    const entries = Object.entries(test);
    if (entries.length === 0) this.fail(PolicyMessages.emptyGroup(`${where}.${column.property}`, "operator"));
    return entries.map(([operator, operand]): ConditionTemplate => {
      switch (operator) {
        case "=":
        case "<>":
          if (operand === null) return { kind: "null", column, negated: operator === "<>" };
          this.operand(column, operand, where, claims, false);
          return { kind: "compare", column, operator, value: operand };
        case "<":
        case "<=":
        case ">":
        case ">=":
          if (operand === null) this.fail(PolicyMessages.nullOrdering(where, column.property, operator));
          this.operand(column, operand, where, claims, false);
          return { kind: "compare", column, operator, value: operand };
        case "LIKE":
          if (column.type.kind !== "string") this.fail(PolicyMessages.likeNotText(where, column.property));
          this.operand(column, operand, where, claims, false);
          return { kind: "compare", column, operator: "LIKE", value: operand };
        case "IN":
          if (operand instanceof CallerValueReference) {
            this.operand(column, operand, where, claims, true);
            return { kind: "in", column, values: operand };
          }
          if (!Array.isArray(operand)) this.fail(PolicyMessages.inNotList(where, column.property));
          for (const item of operand) this.operand(column, item, where, claims, false);
          return { kind: "in", column, values: operand };
        default:
          return this.fail(PolicyMessages.unknownOperator(where, column.property, operator));
      }
    });
  }

  /** Checks that a value (a constant, or a caller's value) compares with the column; records the claims it names. */
  operand(column: ColumnMapping, value: unknown, where: string, claims: Set<string>, list: boolean): void {
    const kind = column.type.kind;
    if (value instanceof CallerValueReference) {
      if (value.claim === undefined) {
        if (kind !== "string" || list)
          this.fail(PolicyMessages.wrongType(where, column.property, describeKind(column), `the caller's ${value.source}`));
        return;
      }
      const type = this.#claimType(value.claim, where);
      if (type.list !== list) this.fail((list ? PolicyMessages.inNotList : PolicyMessages.listNotIn)(where, column.property));
      if (!type.kinds.includes(kind))
        this.fail(PolicyMessages.wrongType(where, column.property, describeKind(column), `the claim ${value.claim} (${type.name})`));
      claims.add(value.claim);
      return;
    }
    if (!constantFits(kind, value)) this.fail(PolicyMessages.wrongType(where, column.property, describeKind(column), describeValue(value)));
  }

  #claimType(claim: string, where: string): ClaimType<unknown> {
    if (this.#claims === undefined) this.fail(PolicyMessages.claimsNotDeclared(where, claim));
    return this.#claims.types.get(claim) ?? this.fail(PolicyMessages.undeclaredClaim(where, claim));
  }
}

/** Whether a test is an object of operators (not a value: a Date, bytes, a caller's value). */
function isOperatorObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    !(value instanceof Date) &&
    !(value instanceof Uint8Array) &&
    !(value instanceof CallerValueReference) &&
    !Array.isArray(value)
  );
}

/** Whether a constant is a value of a column of `kind`. */
export function constantFits(kind: string, value: unknown): boolean {
  switch (kind) {
    case "int32":
    case "lazy":
      return typeof value === "number" && Number.isInteger(value);
    case "float":
      return typeof value === "number" && Number.isFinite(value);
    case "int64":
      return typeof value === "bigint";
    case "decimal":
      return typeof value === "string" && isDecimalText(value);
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    case "date":
      return value instanceof Date && !Number.isNaN(value.getTime());
    default:
      return false;
  }
}

function describeKind(column: ColumnMapping): string {
  return column.type.kind === "lazy" ? "a reference" : column.type.kind;
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (value instanceof Date) return "a date";
  if (typeof value === "object") return `a ${(value as object).constructor?.name ?? "object"}`;
  return `the ${typeof value} ${String(value)}`;
}

const policies = planPerMapping((mapping: EntityMapping, source: PlanSource): EntityPolicy | undefined => {
  const records = (source.annotations.get(policyKey) ?? []) as readonly PolicyRecord[];
  if (records.length === 0) return undefined;
  if (records.length > 1) throw new MappingError(MappingMessages.invalidEntity(mapping.name, PolicyMessages.appliedTwice));
  return new EntityPolicy(mapping, records[0]);
});

/** The checked policy of a mapping, or undefined for an entity without `@Policy`. @internal */
export function entityPolicyOf(mapping: EntityMapping): EntityPolicy | undefined {
  return mapping.hasPolicy ? policies.of(mapping) : undefined;
}
