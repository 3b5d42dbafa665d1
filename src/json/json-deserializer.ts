import { InvalidInputError } from "../errors.js";
import type { EntityClass } from "../mapping/column-type.js";
import { EntityMapping } from "../mapping/entity-mapping.js";
import { Lazy, LazyList } from "../mapping/lazy.js";
import { type JsonPlan, jsonPlanOf } from "./json-plan.js";
import type { PolicyLookup } from "../session/policy-scope.js";
import { JsonMessages, jsonTypeOf } from "./json-messages.js";
import { isJsonObject } from "./json-value.js";

/**
 * Builds a new entity from a JSON object (the wire format: docs/entities.md, "JSON"). Only the members the plan reads are
 * looked at: never a change-tracking column, never a `@JsonIgnore` or `@JsonIgnoreDeserialize` one; a
 * `Lazy<T>` field `company` is read from `companyId` alone; a detail array replaces the list. Absent
 * properties keep the constructor's value; unknown properties are ignored. A value of the wrong JSON type
 * throws `InvalidInputError` naming the property, and so does a detail array longer than `maxDetailItems`
 * (checked before any of its items is read). `bind` is called on every entity built (the session's attach);
 * with `policies` (the session), a member an entity's policy never lets the caller write is not read either: it keeps
 * its default, and the writer refuses a body naming it, never decoded, so that not even its type tells of it.
 */
export function entityFromJson<T extends object>(
  entityClass: EntityClass<T>,
  json: unknown,
  bind: (entity: object) => void,
  maxDetailItems = Number.POSITIVE_INFINITY,
  policies?: PolicyLookup,
): T {
  const mapping = EntityMapping.of(entityClass);
  return read(mapping, json, bind, undefined, maxDetailItems, policies) as T;
}

/** What JSON input reads of an entity: of one with a `@Policy`, not the members the caller may never write. */
function readPlanOf(mapping: EntityMapping, policies: PolicyLookup | undefined): JsonPlan {
  const plan = jsonPlanOf(mapping);
  if (!mapping.hasPolicy || policies === undefined) return plan;
  const policy = policies.callerPolicy(mapping);
  return policy === undefined ? plan : plan.without(policy.notWritableList);
}

function read(
  mapping: EntityMapping,
  json: unknown,
  bind: (entity: object) => void,
  where: string | undefined,
  max: number,
  policies: PolicyLookup | undefined,
): object {
  if (!isJsonObject(json)) throw new InvalidInputError(where ?? JsonMessages.notAnObject(mapping.name));
  const entity = mapping.create();
  const plan = readPlanOf(mapping, policies);
  const readScalars = plan.readScalars;
  if (readScalars !== undefined) {
    readScalars(json, entity);
    bind(entity);
    return entity;
  }
  for (const field of plan.reads) {
    if (!Object.hasOwn(json, field.name)) continue;
    const value = json[field.name];
    if (field.kind === "column") {
      const decoded = field.decode(value);
      if (field.column.type.kind === "lazy") {
        const current = field.column.get(entity);
        if (current instanceof Lazy) current.id = decoded as number | null;
        else field.column.set(entity, new Lazy(decoded as number | null));
      } else {
        field.column.set(entity, decoded);
      }
      continue;
    }
    const detail = field.detail;
    if (!Array.isArray(value))
      throw new InvalidInputError(JsonMessages.wrongType(field.name, "an array", jsonTypeOf(value)), { property: field.name });
    if (value.length > max)
      throw new InvalidInputError(JsonMessages.tooManyDetails(field.name, value.length, max), { property: field.name });
    const child = EntityMapping.of(detail.target());
    const children = value.map((item, index) =>
      read(child, item, bind, JsonMessages.detailItem(field.name, index, child.name), max, policies),
    );
    const current = detail.get(entity);
    if (current instanceof LazyList) current.replace(children);
    else detail.set(entity, new LazyList(children));
  }
  bind(entity);
  return entity;
}
