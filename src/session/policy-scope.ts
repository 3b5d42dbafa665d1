import { PolicyCallerRequiredError, PolicyRefusedError, ValidationError, type ValidationFailure } from "../errors.js";
import type { Condition } from "../filter/condition.js";
import type { EntityClass } from "../mapping/column-type.js";
import { type ColumnMapping, EntityMapping } from "../mapping/entity-mapping.js";
import { Lazy } from "../mapping/lazy.js";
import { wireNameOf } from "../mapping/wire-name.js";
import type { PolicyCaller } from "../policy/caller.js";
import { type CallerPolicy, callerKey, callerPolicyOf, columnsOf, entityValues, noRows } from "../policy/caller-policy.js";
import { conditionHolds } from "../filter/condition-match.js";
import { entityPolicyOf } from "../policy/entity-policy.js";
import type { PolicyOperation } from "../policy/policy-operation.js";
import { PolicyMessages } from "../policy/policy-messages.js";
import { compareDecimalText } from "../values/decimal-text.js";
import { SessionMessages } from "./session-messages.js";

/** What decides a session's caller for the entities with a `@Policy` (`Context` is one). */
export interface PolicySource {
  /** True for a session that reads and writes every row (administration, seeding): no policy applies. */
  readonly unscoped: boolean;
  /** The caller of the session; undefined when there is none. */
  readonly onGetCurrentCaller: (() => PolicyCaller | undefined) | undefined;
}

/** Where a session's parts ask for an entity's policy as it applies to the session's caller (`Context.callerPolicy`). */
export interface PolicyLookup {
  /** The entity's policy for the session's caller; undefined for an entity without one and in an unscoped session. */
  callerPolicy(mapping: EntityMapping): CallerPolicy | undefined;
}

/**
 * The policies of one session as they apply to its caller, one `CallerPolicy` per entity, worked out on first use
 * and kept while the caller stays the same object.
 */
export class SessionPolicies {
  readonly #source: PolicySource;
  readonly #byMapping = new Map<EntityMapping, CallerPolicy>();
  #caller: PolicyCaller | undefined;
  #key = "";

  /** @param source the session. */
  constructor(source: PolicySource) {
    this.#source = source;
  }

  /**
   * The entity's policy for the session's caller: undefined for an entity without `@Policy` and for an unscoped
   * session; `PolicyCallerRequiredError` for a session without a caller.
   */
  of(mapping: EntityMapping): CallerPolicy | undefined {
    if (!mapping.hasPolicy || this.#source.unscoped) return undefined;
    const caller = this.#source.onGetCurrentCaller?.();
    if (caller === undefined || caller === null) {
      throw new PolicyCallerRequiredError(mapping.name, PolicyMessages.callerRequired(mapping.name));
    }
    if (caller !== this.#caller) {
      this.#caller = caller;
      this.#key = callerKey(caller);
      this.#byMapping.clear();
    }
    let policy = this.#byMapping.get(mapping);
    if (policy === undefined) {
      const declared = entityPolicyOf(mapping);
      if (declared === undefined) return undefined;
      policy = callerPolicyOf(declared, caller, this.#key);
      this.#byMapping.set(mapping, policy);
    }
    return policy;
  }
}

/** The condition a policy puts on the rows of `operation` (undefined: none). */
export function policyGuard(policy: CallerPolicy | undefined, operation: PolicyOperation): Condition | undefined {
  return policy === undefined ? undefined : policy.rows(operation);
}

/** Refuses an operation that no rule grants the caller at all (`PolicyRefusedError`: nothing is read or written). */
export function requireGrant(policy: CallerPolicy, operation: PolicyOperation): void {
  if (policy.rows(operation) === noRows) {
    const entity = policy.policy.mapping.name;
    throw new PolicyRefusedError(entity, operation, PolicyMessages.refused(entity, operation));
  }
}

/** Whether two values of a column are the same value (references by key, dates by time, decimals by value, bytes by content). */
export function sameValue(column: ColumnMapping, a: unknown, b: unknown): boolean {
  if (a instanceof Lazy || b instanceof Lazy) return (a instanceof Lazy ? a.id : a) === (b instanceof Lazy ? b.id : b);
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof Uint8Array && b instanceof Uint8Array) return a.length === b.length && a.every((byte, i) => byte === b[i]);
  if (column.type.kind === "decimal") return compareDecimalText(String(a), String(b)) === 0;
  return a === b;
}

/** The failure of one member the caller may not write (or whose value it may not write). */
function failure(column: ColumnMapping, message: string): ValidationFailure {
  return { property: wireNameOf(column), column: column.columnName, message };
}

/**
 * Before an insert of a governed entity: writes the values the policy sets from the caller, and refuses a member the
 * caller may not write that holds anything but its default (`ValidationError` naming the members).
 */
export function enforceInsert(policy: CallerPolicy, entity: object): void {
  const mapping = policy.policy.mapping;
  applySetValues(policy, "insert", entity);
  const failures: ValidationFailure[] = [];
  const values = entityValues(entity);
  const defaults = mapping.create();
  for (const column of policy.notWritableOn(values)) {
    if (policy.policy.setColumns.has(column)) continue;
    if (!sameValue(column, column.get(entity), column.get(defaults)))
      failures.push(failure(column, PolicyMessages.memberNotWritable(wireNameOf(column))));
  }
  if (failures.length > 0) throw new ValidationError(failures);
}

/**
 * Before an update of a governed entity whose stored row is `stored` (read through the update's rows): refuses a
 * member the caller may not write on that row whose value changed, and writes the values the policy sets on update.
 */
export function enforceUpdate(policy: CallerPolicy, entity: object, stored: object | undefined): void {
  const failures: ValidationFailure[] = [];
  if (stored !== undefined) {
    for (const column of policy.notWritableOn(entityValues(stored))) {
      if (policy.policy.setOnUpdate.some((value) => value.column === column)) continue;
      if (!sameValue(column, column.get(entity), column.get(stored)))
        failures.push(failure(column, PolicyMessages.memberNotWritable(wireNameOf(column))));
    }
  }
  if (failures.length > 0) throw new ValidationError(failures);
  applySetValues(policy, "update", entity);
}

/** Whether an update must compare the entity with its stored row: some member is not written by every caller. */
export function needsStoredRow(policy: CallerPolicy): boolean {
  return policy.notWritable.size > 0 || policy.conditionalWrites.length > 0;
}

/**
 * Right before the statement of an insert of a governed entity (after its events and stamps): refuses a row whose
 * values no rule granting inserts allows (its `rows` and `check`), naming the members (`ValidationError`).
 */
export function refuseInsertedValues(policy: CallerPolicy, entity: object): void {
  const refused = policy.refusedValues("insert", entityValues(entity));
  if (refused.length > 0) throw refusedValuesError(refused);
}

function refusedValuesError(columns: Iterable<ColumnMapping>): ValidationError {
  return new ValidationError([...columns].map((column) => failure(column, PolicyMessages.valueRefused(wireNameOf(column)))));
}

/**
 * Right before the statement of an update of a governed entity (after its events and stamps): the row after the
 * update must meet one rule that grants updates (its `rows` and `check`). A part of a rule on members the update
 * `writes` (and the key) is decided on the entity; a part on members it leaves as they are (the Created pair, the
 * tenant) holds on the new row exactly when it holds on the stored one, so it becomes a condition of the UPDATE
 * (answered with the update's rows: the OR of such parts of the rules whose other parts hold; undefined when one rule needs none); a part
 * on both kinds is decided on the entity over the `stored` row. No rule holding is a `ValidationError` naming the
 * members of the failing parts.
 */
export async function checkUpdatedValues(
  policy: CallerPolicy,
  entity: object,
  writes: (column: ColumnMapping) => boolean,
  stored: () => Promise<object>,
): Promise<Condition | undefined> {
  const alternatives = policy.writeAlternatives("update");
  if (alternatives === undefined) return undefined;
  const values = entityValues(entity);
  let merged: ((column: ColumnMapping) => unknown) | undefined;
  const refused = new Set<ColumnMapping>();
  const passing: Condition[] = [];
  const passed: number[] = [];
  for (const [index, { parts }] of alternatives.entries()) {
    const onStored: Condition[] = [];
    let holds = true;
    for (const part of parts) {
      const columns = columnsOf(part);
      const written = columns.filter(writes).length;
      if (written === 0) {
        onStored.push(part);
        continue;
      }
      if (written < columns.length && merged === undefined) {
        const before = entityValues(await stored());
        merged = (column) => (writes(column) ? values(column) : before(column));
      }
      if (!conditionHolds(part, written === columns.length ? values : (merged as (column: ColumnMapping) => unknown))) {
        holds = false;
        for (const column of columns) refused.add(column);
      }
    }
    if (!holds) continue;
    if (onStored.length === 0) return undefined;
    passing.push(onStored.length === 1 ? onStored[0] : { kind: "and", conditions: onStored });
    passed.push(index);
  }
  if (passing.length === 0) throw refusedValuesError(refused);
  // The same rules passing give the same condition object, so that its statement is rendered once.
  const key = `update:${passed.join(",")}`;
  const known = policy.memo.get(key) as Condition | undefined;
  if (known !== undefined) return known;
  const condition = bothConditions(policy.rows("update"), passing.length === 1 ? passing[0] : { kind: "or", conditions: passing });
  policy.memo.set(key, condition);
  return condition;
}

/** Both conditions (either may be absent). */
export function bothConditions(a: Condition | undefined, b: Condition | undefined): Condition | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return { kind: "and", conditions: [a, b] };
}

/** Writes the values the policy sets on `operation`; a value of a claim the caller lacks refuses the write. */
function applySetValues(policy: CallerPolicy, operation: "insert" | "update", entity: object): void {
  for (const { column, value } of policy.setValues(operation)) {
    if (value === undefined) {
      const entityName = policy.policy.mapping.name;
      throw new PolicyRefusedError(entityName, operation, PolicyMessages.refused(entityName, operation));
    }
    const current = column.get(entity);
    if (current instanceof Lazy) current.id = value as number;
    else column.set(entity, column.type.kind === "lazy" ? new Lazy(value as number) : value);
  }
}

/**
 * In a session with a caller, a write may not refer to a row of a governed entity that the caller cannot read: a
 * reference that reads as absent is a `ValidationError` naming the property, the answer of a missing row, so that a
 * write can neither point at a hidden row nor tell whether it exists. `tenantChecked`: the tenant's check
 * (`checkTenantReferences`) read the references of scoped entities already.
 */
export async function checkPolicyReferences(
  session: { tryGet(entityClass: EntityClass, id: number): Promise<object | null> },
  policies: PolicyLookup,
  mapping: EntityMapping,
  entity: object,
  tenantChecked: boolean,
): Promise<void> {
  const failures: ValidationFailure[] = [];
  for (const column of mapping.ownColumns) {
    if (column.type.kind !== "lazy") continue;
    const target = column.type.target?.();
    if (target === undefined) continue;
    const targetMapping = EntityMapping.of(target);
    // A reference the tenant's check read already was read through the policy too.
    if ((tenantChecked && targetMapping.tenantColumn !== undefined) || policies.callerPolicy(targetMapping) === undefined) continue;
    const reference = column.get(entity);
    const id = reference instanceof Lazy ? reference.id : null;
    if (id === null || (await session.tryGet(target, id)) !== null) continue;
    failures.push(failure(column, SessionMessages.referenceAbsent(target.name, id)));
  }
  if (failures.length > 0) throw new ValidationError(failures);
}
