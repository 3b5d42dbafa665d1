import { type EntityClass, int32Range } from "../../mapping/column-type.js";
import { type ColumnMapping, EntityMapping } from "../../mapping/entity-mapping.js";
import { isFilterable, isDeserialized, isSerialized, jsonMemberName, jsonPropertyName } from "../../json/json-visibility.js";
import { ValidationKey, type RuleDeclaration } from "../../validation/validation-decorators.js";
import type { JsonSchema } from "../openapi/openapi-types.js";
import type { PolicyCaller } from "../../policy/caller.js";
import { audienceOf, type SchemaAudience } from "./schema-audience.js";

/** The schemas of one entity's JSON, by component name. */
type Schemas = Record<string, JsonSchema>;

const int64Pattern = "^-?\\d+$";
const decimalPattern = "^-?\\d+(\\.\\d+)?$";

function limitOf(limit: number | bigint): number {
  return typeof limit === "bigint" ? Number(limit) : limit;
}

/** The JSON Schema keyword of each rule with one numeric limit. */
const limitKeywords = { MaxValue: "maximum", MinValue: "minimum", Less: "exclusiveMaximum", Greater: "exclusiveMinimum" } as const;

/** The JSON Schema of one column's value: its type, then what its validation rules promise. */
function columnSchema(column: ColumnMapping, audience: SchemaAudience): Record<string, unknown> {
  const type = column.type;
  let schema: Record<string, unknown>;
  switch (type.kind) {
    case "int32":
    case "lazy":
      schema = { type: "integer", format: "int32", minimum: int32Range.min, maximum: int32Range.max };
      break;
    case "int64":
      schema = { type: "string", format: "int64", pattern: int64Pattern };
      break;
    case "decimal":
      schema = { type: "string", format: "decimal", pattern: decimalPattern };
      break;
    case "float":
      schema = { type: "number", format: "double" };
      break;
    case "string":
      schema = { type: "string", ...(type.size !== undefined ? { maxLength: type.size } : {}) };
      break;
    case "boolean":
      schema = { type: "boolean" };
      break;
    case "date":
      schema = { type: "string", format: "date-time" };
      break;
    case "blob":
      schema = { type: "string", contentEncoding: "base64" };
      break;
  }
  const numeric = schema.type === "integer" || schema.type === "number";
  for (const rule of (column.annotations.get(ValidationKey.rule) ?? []) as readonly RuleDeclaration[]) {
    switch (rule.rule) {
      case "MaxLength":
        schema.maxLength = Math.min(rule.length, (schema.maxLength as number | undefined) ?? rule.length);
        break;
      case "MinLength":
        schema.minLength = rule.length;
        break;
      case "MaxValue":
      case "MinValue":
      case "Less":
      case "Greater":
        if (numeric) schema[limitKeywords[rule.rule]] = limitOf(rule.limit);
        break;
      case "Range":
        if (numeric) {
          schema.minimum = limitOf(rule.min);
          schema.maximum = limitOf(rule.max);
        }
        break;
      case "Regex":
        schema.pattern = typeof rule.pattern === "string" ? rule.pattern : rule.pattern.source;
        break;
      case "Email":
        schema.format = "email";
        break;
      case "Required":
        break;
    }
  }
  if (!audience.writes(column)) schema.readOnly = true;
  if (audience.reads(column) === "never") schema.writeOnly = true;
  if (type.nullable) schema.type = [schema.type, "null"];
  return schema;
}

/**
 * The component schema of an entity and of every entity it reaches (references and details), added to
 * `schemas` under the entities' names: JSON names, types, the validation rules as schema keywords,
 * change-tracking and `@JsonIgnoreDeserialize` columns read-only, `@JsonIgnore` columns absent, a `Lazy`
 * reference as `<name>Id` plus the optional nested object, a `LazyList` as an optional array. For a `role`, what the
 * entity's policy lets that caller read and write: a member it neither reads nor writes is absent, one it cannot
 * write read-only, one it reads on some rows only not required (without a role, every member a policy may hide is
 * not required).
 */
export function addEntitySchemas(entityClass: EntityClass, schemas: Schemas, role?: PolicyCaller): string {
  const mapping = EntityMapping.of(entityClass);
  const name = mapping.name;
  if (schemas[name] !== undefined) return name;
  const audience = audienceOf(mapping, role);
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  schemas[name] = { type: "object", properties, required };
  for (const column of mapping.columns) {
    const reads = audience.reads(column);
    if (reads === "never" && !audience.writes(column)) continue;
    const wireName = jsonPropertyName(column);
    properties[wireName] = columnSchema(column, audience);
    if (reads === "always") required.push(wireName);
    if (column.type.kind === "lazy") {
      const target = addEntitySchemas((column.type.target as () => EntityClass)(), schemas, role);
      properties[jsonMemberName(column)] = { anyOf: [{ $ref: `#/components/schemas/${target}` }, { type: "null" }], readOnly: true };
    }
  }
  for (const detail of mapping.details) {
    if (!isSerialized(detail) && !isDeserialized(detail)) continue;
    const target = addEntitySchemas(detail.target(), schemas, role);
    properties[jsonMemberName(detail)] = { type: "array", items: { $ref: `#/components/schemas/${target}` } };
  }
  return name;
}

/**
 * Adds the schemas of an entity's filter body (docs/crud.md) and answers the body's name:
 * `<Entity>Filter`, its conditions naming the filterable JSON names and the operators as enums (for a `role`, those
 * it reads on every row).
 */
export function addFilterSchemas(entityClass: EntityClass, schemas: Schemas, role?: PolicyCaller): string {
  const mapping = EntityMapping.of(entityClass);
  const name = `${mapping.name}Filter`;
  const audience = audienceOf(mapping, role);
  const filterable = mapping.columns.filter(
    (column) => isFilterable(column) && (role === undefined || audience.reads(column) === "always"),
  );
  const columns = filterable.map(jsonPropertyName);
  const columnName = { type: "string", enum: columns, description: columnNameDescription(filterable) };
  const item = { anyOf: [{ $ref: `#/components/schemas/${name}Condition` }, { $ref: `#/components/schemas/${name}Or` }] };
  schemas[`${name}Condition`] = {
    type: "object",
    required: ["columnName", "condition"],
    properties: {
      columnName,
      condition: { type: "string", enum: ["=", "<>", "<", "<=", ">", ">=", "LIKE", "NOT LIKE", "IN", "IS NULL", "IS NOT NULL"] },
      value: {},
    },
  };
  schemas[`${name}Or`] = { type: "object", required: ["or"], properties: { or: { type: "array", items: item } } };
  schemas[name] = {
    type: "object",
    properties: {
      where: { type: "array", items: item },
      orderBy: {
        type: "array",
        items: {
          type: "object",
          required: ["columnName"],
          properties: { columnName, direction: { type: "string", enum: ["ASC", "DESC", ""] } },
        },
      },
      start: { type: "integer", minimum: 0 },
      limit: { type: "integer" },
      after: { type: "string", description: "The nextCursor of the previous page (keyset paging)." },
      count: {
        description:
          'How the page counts the rows the filter matches: true or "exact", false or "none" (no count), "estimated" (the engine\'s statistics), or {"atMost": n} (exactly up to n).',
        anyOf: [
          { type: "boolean" },
          { type: "string", enum: ["exact", "none", "estimated"] },
          { type: "object", required: ["atMost"], additionalProperties: false, properties: { atMost: { type: "integer", minimum: 1 } } },
        ],
      },
    },
  };
  return name;
}

/**
 * What a filter's `columnName` may be: the listed JSON names are the ones to send; the server also reads each
 * member's database column name, and either name in any case, which the description says with the names that differ.
 */
function columnNameDescription(filterable: readonly ColumnMapping[]): string {
  const others = filterable
    .filter((column) => column.columnName.toLowerCase() !== jsonPropertyName(column).toLowerCase())
    .map((column) => `${column.columnName} for ${jsonPropertyName(column)}`);
  const also = others.length === 0 ? "" : ` (${others.join(", ")})`;
  return `A filterable member's JSON name. The server also reads its database column name${also}, and either name in any case.`;
}
