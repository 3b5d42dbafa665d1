import { ValidationError, type ValidationFailure } from "../../errors.js";
import { jsonPropertyName } from "../../json/json-visibility.js";
import { decodeColumnJson } from "../../json/column-json.js";
import { type ColumnMapping, EntityMapping } from "../../mapping/entity-mapping.js";
import { type AggregateColumns, type AggregateGroupColumn, aggregateColumnsOf } from "./aggregate-columns.js";
import type { PolicyLookup } from "../../session/policy-scope.js";
import { Lazy } from "../../mapping/lazy.js";
import { wireNameOf } from "../../mapping/wire-name.js";
import { type CallerPolicy, entityValues } from "../../policy/caller-policy.js";
import { PolicyMessages } from "../../policy/policy-messages.js";
import { sameValue } from "../../session/policy-scope.js";
import type { HttpContext } from "./http-context.js";

/** The entity's `@Policy` for the request's caller; undefined for an entity without one (one property test). */
export function requestPolicy(context: HttpContext, mapping: EntityMapping): CallerPolicy | undefined {
  return mapping.hasPolicy ? context.callerPolicy(mapping) : undefined;
}

/**
 * Refuses (422, naming each) the members of a body that the caller may not write: on an update (`stored`, the row
 * as the caller read it) unless it may read the member there and the body's value is the stored one (a client
 * sending back what it read); on an insert unless the value is the one the member gets anyway (its default, or
 * the value the policy sets from the caller). A member hidden from the caller is refused whatever its value, so
 * that no answer tells whether a guess was right.
 */
export function refuseUnwritableMembers(policy: CallerPolicy, body: unknown, entity: object, stored: object | undefined): void {
  if (typeof body !== "object" || body === null) return;
  const row = entityValues(stored ?? entity);
  const hidden = policy.hiddenOn(row);
  const failures: ValidationFailure[] = [];
  let expected: object | undefined = stored;
  for (const column of policy.notWritableOn(row)) {
    const key = jsonPropertyName(column);
    if (!Object.hasOwn(body, key)) continue;
    if (expected === undefined) expected = insertedValues(policy);
    // JSON input does not read such a member: its value is read here only, and one that does not decode is refused too.
    const sent = decoded(column, (body as Record<string, unknown>)[key]);
    if (!hidden.includes(column) && sameValue(column, sent, column.get(expected))) continue;
    failures.push({
      property: wireNameOf(column),
      column: column.columnName,
      message: PolicyMessages.memberNotWritable(wireNameOf(column)),
    });
  }
  if (failures.length > 0) throw new ValidationError(failures);
}

/** A body's value of a column as the entity would hold it, or a value no column holds when it does not decode. */
function decoded(column: ColumnMapping, value: unknown): unknown {
  try {
    const read = decodeColumnJson(column, value);
    return column.type.kind === "lazy" ? new Lazy(read as number | null) : read;
  } catch {
    return undecodable;
  }
}

/** What `decoded` answers for a value that does not decode: the same as no stored value. */
const undecodable = Symbol("undecodable");

/** What an insert's members hold when the body does not write them: the defaults, with the values the policy sets. */
function insertedValues(policy: CallerPolicy): object {
  const values = policy.policy.mapping.create();
  for (const { column, value } of policy.setValues("insert")) {
    if (column.type.kind === "lazy") column.set(values, new Lazy(value as number));
    else column.set(values, value);
  }
  return values;
}

/**
 * The members of a governed entity that an update takes from the stored row: those the caller may not write there (a
 * body that names one with another value was refused), and those it may not read there that the body leaves out (a
 * client never sends back what it never saw).
 */
export function keptByPolicy(policy: CallerPolicy, body: unknown, stored: object): ColumnMapping[] {
  const row = entityValues(stored);
  const kept = new Set(policy.notWritableOn(row));
  const object = typeof body === "object" && body !== null ? body : {};
  for (const column of policy.hiddenOn(row)) if (!Object.hasOwn(object, jsonPropertyName(column))) kept.add(column);
  return [...kept].filter((column) => !column.isJoined);
}

/**
 * Whether the request's caller may name a column in an aggregate body, or undefined when no policy applies (the
 * entity and the entities it refers to have none): a column of the entity that the caller reads on every row; a
 * referenced entity's column (`company.name`) only when the caller reads every row of that entity and the column on
 * each, since the join reads the referenced rows without their policy and a group could otherwise name a row the
 * caller cannot read.
 */
export function aggregateReadable(mapping: EntityMapping, policies: PolicyLookup): ((column: ColumnMapping) => boolean) | undefined {
  const own = mapping.hasPolicy ? policies.callerPolicy(mapping) : undefined;
  const referenced = new Map<ColumnMapping, boolean>();
  for (const column of mapping.columns) {
    const target = column.type.kind === "lazy" ? column.type.target?.() : undefined;
    if (target === undefined) continue;
    const targetMapping = EntityMapping.of(target);
    const targetPolicy = targetMapping.hasPolicy ? policies.callerPolicy(targetMapping) : undefined;
    if (targetPolicy === undefined) continue;
    const everyRow = targetPolicy.rows("read") === undefined;
    for (const each of targetMapping.ownColumns) referenced.set(each, everyRow && targetPolicy.readsAlways(each));
  }
  if (own === undefined && referenced.size === 0) return undefined;
  return (column) => referenced.get(column) ?? (own === undefined || own.readsAlways(column));
}

/**
 * The columns an aggregate body may name for a caller (`aggregateReadable`), `uses` and `groupNames` included: what a
 * role's OpenAPI document lists.
 */
export function aggregateColumnsFor(mapping: EntityMapping, policies: PolicyLookup | undefined): AggregateColumns {
  const columns = aggregateColumnsOf(mapping);
  const readable = policies === undefined ? undefined : aggregateReadable(mapping, policies);
  if (readable === undefined) return columns;
  const group = (name: string): AggregateGroupColumn | undefined => {
    const found = columns.group(name);
    if (found === undefined || !readable(found.column) || (found.through !== undefined && !readable(found.through))) return undefined;
    return found;
  };
  return {
    uses: columns.uses.filter((use) => readable(use.column)),
    groupNames: columns.groupNames.filter((name) => group(name) !== undefined),
    find: (name) => {
      const use = columns.find(name);
      return use !== undefined && readable(use.column) ? use : undefined;
    },
    group,
  };
}
