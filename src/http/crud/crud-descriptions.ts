import type { EntityClass } from "../../mapping/column-type.js";
import { EntityMapping } from "../../mapping/entity-mapping.js";
import { rawEntityOf } from "../../mapping/metadata-store.js";
import { jsonPropertyName } from "../../json/json-visibility.js";
import { addClassSchemaSource } from "../openapi/operation-decorator.js";
import type { HttpOperationDescription, HttpRouteDescriptions, JsonSchema } from "../openapi/openapi-types.js";
import { addEntitySchemas, addFilterSchemas } from "./entity-schemas.js";

const schemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** An entity class named as a body in `@OpenApi` is its component schema; any other class is left to other sources. */
addClassSchemaSource((bodyClass, schemas) =>
  rawEntityOf(bodyClass as EntityClass) === undefined ? undefined : schemaRef(addEntitySchemas(bodyClass as EntityClass, schemas)),
);

/**
 * The OpenAPI descriptions of the generic entity routes (SPEC.md 4.2) of one entity class: the entity's
 * schema for single entities and bodies, `{count, data}` for lists, the filter body of select, the metadata
 * and `{id, deleted}` of a delete. `write` adds the writer's routes.
 */
export function entityRouteDescriptions(entityClass: EntityClass, write: boolean): HttpRouteDescriptions {
  const schemas: Record<string, JsonSchema> = {};
  const entity = addEntitySchemas(entityClass, schemas);
  const filter = addFilterSchemas(entityClass, schemas);
  schemas[`${entity}Page`] = {
    type: "object",
    required: ["count", "data"],
    properties: { count: { type: "integer", minimum: 0 }, data: { type: "array", items: schemaRef(entity) } },
  };
  const page = schemaRef(`${entity}Page`);
  const tags = [entity];
  const operations: Record<string, HttpOperationDescription> = {
    selectAll: { tags, summary: `Every ${entity} up to the page ceiling.`, responseBody: page },
    get: { tags, summary: `One ${entity}, with details.`, parameterNames: ["id"], responseBody: schemaRef(entity) },
    find: { tags, summary: `One ${entity}, entity only.`, parameterNames: ["id"], responseBody: schemaRef(entity) },
    metadata: {
      tags,
      summary: `The metadata of ${entity}.`,
      responseBody: { type: "object", required: ["entity", "primaryKey", "properties"] },
    },
    select: { tags, summary: `The ${entity} rows a filter selects.`, requestBody: schemaRef(filter), responseBody: page },
  };
  if (write) {
    const version = EntityMapping.of(entityClass).versionColumn;
    operations.createNew = { tags, summary: `A new ${entity} with its id, not inserted.`, responseBody: schemaRef(entity) };
    operations.insert = { tags, summary: `Inserts a ${entity}.`, requestBody: schemaRef(entity), responseBody: schemaRef(entity) };
    operations.bulk = {
      tags,
      summary: `Inserts, updates and deletes many ${entity} rows in one transaction, all or nothing.`,
      requestBody: {
        type: "object",
        additionalProperties: false,
        properties: {
          insert: { type: "array", items: schemaRef(entity) },
          update: { type: "array", items: schemaRef(entity) },
          delete: { type: "array", items: { type: "object", required: ["id"] } },
        },
      },
      responseBody: {
        type: "object",
        required: ["inserted", "updated", "deleted"],
        properties: {
          inserted: { type: "array", items: schemaRef(entity) },
          updated: { type: "array", items: schemaRef(entity) },
          deleted: { type: "array", items: { type: "integer", format: "int32" } },
        },
      },
    };
    operations.update = {
      tags,
      summary: `Updates a ${entity} (its version must be current).`,
      requestBody: schemaRef(entity),
      responseBody: schemaRef(entity),
    };
    operations.patch = {
      tags,
      summary:
        version === undefined
          ? `Changes the properties of a ${entity} that a JSON Merge Patch carries.`
          : `Changes the properties of a ${entity} that a JSON Merge Patch carries (its ${jsonPropertyName(version)} must be current).`,
      parameterNames: ["id"],
      requestBody: version === undefined ? { type: "object" } : { type: "object", required: [jsonPropertyName(version)] },
      responseBody: schemaRef(entity),
    };
    operations.delete = {
      tags,
      summary: `Deletes a ${entity} (its version must be current).`,
      parameterNames: ["id", "version"],
      responseBody: {
        type: "object",
        required: ["id", "deleted"],
        properties: { id: { type: "integer", format: "int32" }, deleted: { const: true } },
      },
    };
  }
  return { schemas, operations };
}
