import type { EntityClass } from "../../mapping/column-type.js";
import { EntityMapping } from "../../mapping/entity-mapping.js";
import { isDeserialized, isSerialized, jsonMemberName, jsonPropertyName } from "../../json/json-visibility.js";
import { type RuleDeclaration, ValidationKey } from "../../validation/validation-decorators.js";
import type { JsonSchema } from "../openapi/openapi-types.js";
import { addEntitySchemas } from "./entity-schemas.js";
import type { PolicyCaller } from "../../policy/caller.js";
import { audienceOf } from "./schema-audience.js";

/** Component schemas by name. */
type Schemas = Record<string, JsonSchema>;

/** The component names of an entity's answers under the presets the generic routes use. */
export interface PresetSchemaNames {
  /** Level 0 (`entityOnly`: find, createnew): scalars and `<name>Id` only. */
  readonly entityOnly: string;
  /** One level of references, no details (`withRelations`: the lists and select). */
  readonly withRelations: string;
  /** One level of references and the details (`withDetails`: get and the writer's answers). */
  readonly withDetails: string;
}

const refTo = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

type ObjectSchema = { type: "object"; properties: Record<string, unknown>; required: string[] };

/** The references and details of an entity that its JSON writes, with their JSON names and targets. */
function expansionsOf(
  mapping: EntityMapping,
  role: PolicyCaller | undefined,
): { references: [string, EntityClass][]; details: [string, EntityClass][] } {
  const audience = audienceOf(mapping, role);
  const references: [string, EntityClass][] = [];
  for (const column of mapping.columns) {
    if (column.type.kind === "lazy" && audience.reads(column) !== "never")
      references.push([jsonMemberName(column), (column.type.target as () => EntityClass)()]);
  }
  const details: [string, EntityClass][] = [];
  for (const detail of mapping.details) if (isSerialized(detail)) details.push([jsonMemberName(detail), detail.target()]);
  return { references, details };
}

/**
 * Adds the components of an entity's answers under each preset, derived from its base component (the schema
 * of `addEntitySchemas`, which is also the request body): where nothing of the entity expands, every preset
 * writes the same and the base component serves them all; otherwise `<Entity>EntityOnly` has no nested
 * object, `<Entity>WithRelations` has each reference as the target's level-0 shape (or null), and
 * `<Entity>WithDetails` adds the details as required arrays of their level-0 shapes (an entity without
 * details has no `WithDetails`: its `WithRelations` serves both). For a `role`, as `addEntitySchemas` says.
 */
export function addPresetSchemas(entityClass: EntityClass, schemas: Schemas, role?: PolicyCaller): PresetSchemaNames {
  const base = addEntitySchemas(entityClass, schemas, role);
  const mapping = EntityMapping.of(entityClass);
  const { references, details } = expansionsOf(mapping, role);
  if (references.length === 0 && details.length === 0) return { entityOnly: base, withRelations: base, withDetails: base };
  // Without details, withDetails writes what withRelations writes: one component serves both.
  const names = {
    entityOnly: `${base}EntityOnly`,
    withRelations: `${base}WithRelations`,
    withDetails: details.length === 0 ? `${base}WithRelations` : `${base}WithDetails`,
  };
  if (schemas[names.entityOnly] !== undefined) return names;
  const baseSchema = schemas[base] as unknown as ObjectSchema;
  const expanded = new Set([...references, ...details].map(([name]) => name));
  const flatProperties = Object.fromEntries(Object.entries(baseSchema.properties).filter(([name]) => !expanded.has(name)));
  schemas[names.entityOnly] = { type: "object", properties: flatProperties, required: [...baseSchema.required] };
  const nested: Record<string, unknown> = {};
  for (const [name, target] of references) {
    nested[name] = { anyOf: [refTo(addPresetSchemas(target, schemas, role).entityOnly), { type: "null" }], readOnly: true };
  }
  schemas[names.withRelations] = { type: "object", properties: { ...flatProperties, ...nested }, required: [...baseSchema.required] };
  if (details.length === 0) return names;
  const lists: Record<string, unknown> = {};
  for (const [name, target] of details) {
    lists[name] = { type: "array", items: refTo(addPresetSchemas(target, schemas, role).entityOnly) };
  }
  schemas[names.withDetails] = {
    type: "object",
    properties: { ...flatProperties, ...nested, ...lists },
    required: [...baseSchema.required, ...details.map(([name]) => name)],
  };
  return names;
}

/**
 * Adds `<Entity>Input`, the shape of a request body (insert, update, bulk items), and answers its name: the
 * entity's properties, of which only the `@Required` ones must be present. The server chooses the key and
 * version of an insert (and of a new detail item, whose master key it sets too), and a version may come from
 * `If-Match`, so none of them is required; a detail's items are its own `<Detail>Input`. Read-only members stay
 * listed as `readOnly`, and a client generator leaves them out. For a `role`, as `addEntitySchemas` says.
 */
export function addInputSchema(entityClass: EntityClass, schemas: Schemas, role?: PolicyCaller): string {
  const base = addEntitySchemas(entityClass, schemas, role);
  const name = `${base}Input`;
  if (schemas[name] !== undefined) return name;
  const mapping = EntityMapping.of(entityClass);
  const audience = audienceOf(mapping, role);
  const required: string[] = [];
  for (const column of mapping.columns) {
    const rules = (column.annotations.get(ValidationKey.rule) ?? []) as readonly RuleDeclaration[];
    if (audience.writes(column) && rules.some((rule) => rule.rule === "Required")) required.push(jsonPropertyName(column));
  }
  const properties = { ...(schemas[base] as unknown as ObjectSchema).properties };
  schemas[name] = { type: "object", properties, required };
  for (const detail of mapping.details) {
    if (isDeserialized(detail))
      properties[jsonMemberName(detail)] = { type: "array", items: refTo(addInputSchema(detail.target(), schemas, role)) };
  }
  return name;
}

/**
 * Adds `<Entity>BulkDelete`, the shape of one delete item of a bulk body, and answers its name: the key and,
 * for an entity with a version column, the version, both by their wire names and both required.
 */
export function addBulkDeleteSchema(mapping: EntityMapping, schemas: Schemas): string {
  const name = `${mapping.name}BulkDelete`;
  if (schemas[name] !== undefined) return name;
  const int32 = { type: "integer", format: "int32" };
  const members = [mapping.primaryKey, ...(mapping.versionColumn !== undefined ? [mapping.versionColumn] : [])].map(jsonPropertyName);
  schemas[name] = { type: "object", required: members, properties: Object.fromEntries(members.map((member) => [member, int32])) };
  return name;
}
