import { aggregateFunctions } from "../../mapping/aggregate-decorator.js";
import { dateTruncations } from "../../filter/aggregate-query.js";
import type { EntityClass } from "../../mapping/column-type.js";
import { EntityMapping } from "../../mapping/entity-mapping.js";
import type { JsonSchema } from "../openapi/openapi-types.js";
import { aggregateColumnsOf } from "./aggregate-columns.js";
import type { PolicyCaller } from "../../policy/caller.js";
import { aggregateColumnsFor } from "./policy-body.js";
import { roleLookup } from "./schema-audience.js";
import { maxAggregateNameLength, maxGroupByColumns, maxMetrics } from "./aggregate-body.js";

const schemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/**
 * Adds the schemas of an entity's aggregate body and answer (docs/crud.md "Aggregates") and answers their names:
 * `<Entity>Aggregate` (where as the filter's, groups and measured columns as enums of the aggregatable names,
 * functions and truncations as enums) and `<Entity>AggregatePage` (rows of named values, `nextCursor`).
 * `filter` is the name of the entity's filter body schema, whose conditions `where` reuses.
 */
export function addAggregateSchemas(
  entityClass: EntityClass,
  filter: string,
  schemas: Record<string, JsonSchema>,
  role?: PolicyCaller,
): { body: string; page: string } {
  const mapping = EntityMapping.of(entityClass);
  const body = `${mapping.name}Aggregate`;
  const page = `${mapping.name}AggregatePage`;
  // For a role, the columns its policies let it group and measure.
  const columns = role === undefined ? aggregateColumnsOf(mapping) : aggregateColumnsFor(mapping, roleLookup(role));
  const groups = columns.groupNames;
  const measured = columns.uses.filter((use) => use.metrics.size > 0).map((use) => use.wireName);
  const name = { type: "string", minLength: 1, maxLength: maxAggregateNameLength };
  const condition = (names: JsonSchema): JsonSchema => ({
    type: "object",
    required: ["columnName", "condition"],
    properties: {
      columnName: names,
      condition: { type: "string", enum: ["=", "<>", "<", "<=", ">", ">=", "IN", "IS NULL", "IS NOT NULL"] },
      value: {},
    },
  });
  const havingItem = { anyOf: [schemaRef(`${body}Having`), schemaRef(`${body}HavingOr`)] };
  schemas[`${body}Having`] = condition({ type: "string", description: "The name (as) of a metric." });
  schemas[`${body}HavingOr`] = { type: "object", required: ["or"], properties: { or: { type: "array", items: havingItem } } };
  schemas[body] = {
    type: "object",
    required: ["metrics"],
    properties: {
      where: (schemas[filter] as { properties: Record<string, JsonSchema> }).properties.where,
      groupBy: {
        type: "array",
        maxItems: maxGroupByColumns,
        items: {
          anyOf: [
            { type: "string", enum: groups },
            {
              type: "object",
              required: ["column"],
              properties: { column: { type: "string", enum: groups }, truncate: { type: "string", enum: dateTruncations }, as: name },
            },
          ],
        },
      },
      metrics: {
        type: "array",
        minItems: 1,
        maxItems: maxMetrics,
        items: {
          type: "object",
          required: ["fn", "as"],
          properties: { fn: { type: "string", enum: aggregateFunctions }, column: { type: "string", enum: measured }, as: name },
        },
      },
      having: { type: "array", items: havingItem },
      orderBy: {
        type: "array",
        items: {
          type: "object",
          required: ["columnName"],
          properties: {
            columnName: { type: "string", description: "A group's or a metric's name." },
            direction: { type: "string", enum: ["ASC", "DESC", ""] },
          },
        },
      },
      limit: { type: "integer" },
      after: { type: "string", description: "The nextCursor of the previous page." },
    },
  };
  schemas[page] = {
    type: "object",
    required: ["data"],
    properties: {
      data: {
        type: "array",
        items: {
          type: "object",
          description:
            "One group: each group's value as its column's JSON, each metric's value by its name: counts and int32 sums numbers, int64 sums digit strings, decimal sums exact decimal strings, decimal averages decimal strings with 4 more digits than the column, other averages doubles.",
          additionalProperties: { type: ["string", "number", "boolean", "null"] },
        },
      },
      nextCursor: { type: "string" },
    },
  };
  return { body, page };
}
