import type { EntityClass } from "../../mapping/column-type.js";
import { EntityMapping } from "../../mapping/entity-mapping.js";
import { rawEntityOf } from "../../mapping/metadata-store.js";
import { jsonPropertyName } from "../../json/json-visibility.js";
import { HttpStatusCatalogue } from "../exchange/http-status-catalogue.js";
import { addClassSchemaSource } from "../openapi/operation-decorator.js";
import type { HttpOperationDescription, HttpRouteDescriptions, JsonSchema } from "../openapi/openapi-types.js";
import { addEntitySchemas, addFilterSchemas } from "./entity-schemas.js";
import { addBulkDeleteSchema, addInputSchema, addPresetSchemas } from "./preset-schemas.js";
import { csvColumnsOf, csvMediaType, ndjsonMediaType } from "./stream-format.js";
import { consistencyTokenHeader } from "./consistency-token.js";
import { addAggregateSchemas } from "./aggregate-schemas.js";
import type { PolicyCaller } from "../../policy/caller.js";
import type { PolicyOperation } from "../../policy/policy-operation.js";
import { audienceOf } from "./schema-audience.js";

const schemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** The consistency token a write answers, on a database with read replicas. */
const consistencyTokenAnswer: Readonly<Record<string, JsonSchema>> = {
  [consistencyTokenHeader]: {
    description: "On a database with read replicas: send it back on later reads to read at least what this write committed.",
    schema: { type: "string" },
  },
};

/** The consistency token a read may send back. */
const consistencyTokenParameter: JsonSchema = {
  name: consistencyTokenHeader,
  in: "header",
  required: false,
  description:
    "A token a write answered: the read is served at least that new (by a replica that has replayed the write, or by the primary). Not a token of this server: 400.",
  schema: { type: "string" },
};
const readParameters: readonly JsonSchema[] = [consistencyTokenParameter];

/** An entity class named as a body in `@OpenApi` is its component schema; any other class is left to other sources. */
addClassSchemaSource((bodyClass, schemas) =>
  rawEntityOf(bodyClass as EntityClass) === undefined ? undefined : schemaRef(addEntitySchemas(bodyClass as EntityClass, schemas)),
);

/**
 * The OpenAPI descriptions of the generic entity routes of one entity class: the entity's
 * schema for request bodies, its answers under the preset each route writes with (`withDetails` for get and
 * the writer's answers, `withRelations` for the `{count, data}` lists, `entityOnly` for find and createnew),
 * the filter body of select, the metadata and `{id, deleted}` of a delete. `write` adds the writer's routes.
 * The components are added to `schemas` (the document's, so that an entity reached from many is described
 * once), which the descriptions answer too. For a `role`, the schemas are what the entity's policy lets that caller
 * read and write, and the routes of operations no rule grants it are left out (`omit`).
 */
export function entityRouteDescriptions(
  entityClass: EntityClass,
  write: boolean,
  schemas: Record<string, JsonSchema> = {},
  role?: PolicyCaller,
): HttpRouteDescriptions {
  const entity = addEntitySchemas(entityClass, schemas, role);
  const presets = addPresetSchemas(entityClass, schemas, role);
  const input = schemaRef(addInputSchema(entityClass, schemas, role));
  const filter = addFilterSchemas(entityClass, schemas, role);
  schemas[`${entity}Page`] = {
    type: "object",
    required: ["count", "data"],
    properties: { count: { type: "integer", minimum: 0 }, data: { type: "array", items: schemaRef(presets.withRelations) } },
  };
  schemas[`${entity}SelectPage`] = {
    type: "object",
    required: ["data"],
    properties: {
      count: { type: "integer", minimum: 0 },
      countKind: {
        type: "string",
        enum: ["estimated", "atLeast"],
        description:
          'Present when count is not exact: the engine\'s estimate (count "estimated"), or a count stopped at its ceiling (count {"atMost": n}).',
      },
      data: { type: "array", items: schemaRef(presets.withRelations) },
      nextCursor: { type: "string" },
    },
  };
  const aggregate = addAggregateSchemas(entityClass, filter, schemas, role);
  const page = schemaRef(`${entity}Page`);
  const withDetails = schemaRef(presets.withDetails);
  const entityOnly = schemaRef(presets.entityOnly);
  const tags = [entity];
  const mapping = EntityMapping.of(entityClass);
  const version = mapping.versionColumn;
  // The generic reader and writer answer the entity's ETag when it has a version column.
  const etag = version !== undefined;
  const operations: Record<string, HttpOperationDescription> = {
    selectAll: { tags, summary: `Every ${entity} up to the page ceiling.`, responseBody: page, parameters: readParameters },
    get: {
      tags,
      summary: `One ${entity}, with details.`,
      parameterNames: ["id"],
      responseBody: withDetails,
      etag,
      parameters: readParameters,
    },
    find: {
      tags,
      summary: `One ${entity}, entity only.`,
      parameterNames: ["id"],
      responseBody: entityOnly,
      etag,
      parameters: readParameters,
    },
    metadata: {
      tags,
      summary: `The metadata of ${entity}.`,
      responseBody: { type: "object", required: ["entity", "primaryKey", "properties"] },
    },
    select: {
      tags,
      summary: `The ${entity} rows a filter selects (keyset pages with after and nextCursor).`,
      description:
        "With `Accept: application/x-ndjson` or `text/csv` every row the filter selects is streamed instead, with no page ceiling " +
        "but the body's own `limit`. NDJSON has one data item a line; a failure after the first line ends the answer with the line " +
        '`{"error": {"status", "message", "taskId"?}}`. CSV (RFC 4180) has a header row of the wire names; a failure cuts the body before its last chunk.',
      requestBody: schemaRef(filter),
      responseBody: schemaRef(`${entity}SelectPage`),
      otherResponseBodies: {
        [ndjsonMediaType]: {
          type: "string",
          description: `One ${entity} a line, as in the JSON page's data; a failure after the first line ends with an {"error": ...} line.`,
          "x-tenon-line": schemaRef(presets.withRelations),
        },
        [csvMediaType]: {
          type: "string",
          description: `RFC 4180: a header row (${csvColumnsOf(mapping).join(",")}), then one row per ${entity}; null is an empty field, the empty text "".`,
        },
      },
      parameters: readParameters,
    },
    aggregate: {
      tags,
      summary: `Groups, counts, sums, averages, minima and maxima of the ${entity} rows a where selects (keyset pages over groups).`,
      description:
        "With `Accept: application/x-ndjson` or `text/csv` every group is streamed instead, with no page ceiling but the body's own " +
        '`limit`: NDJSON one group a line (a failure after the first line ends with an `{"error": ...}` line), CSV a header row of the ' +
        "groups' and metrics' names (a failure cuts the body).",
      requestBody: schemaRef(aggregate.body),
      responseBody: schemaRef(aggregate.page),
      otherResponseBodies: {
        [ndjsonMediaType]: { type: "string", description: `One group a line, as in the JSON page's data.` },
        [csvMediaType]: {
          type: "string",
          description: "RFC 4180: a header row of the groups' and metrics' names, then one row per group.",
        },
      },
    },
  };
  const feed = EntityMapping.of(entityClass).changeFeed !== undefined;
  if (feed) operations.changes = changeStreamDescription(entity, tags, schemas);
  if (write) {
    const current = version === undefined ? "" : ` (its ${jsonPropertyName(version)}, or the tag of If-Match, must be current)`;
    operations.createNew = { tags, summary: `A new ${entity} with its id, not inserted.`, responseBody: entityOnly };
    const responseHeaders = consistencyTokenAnswer;
    operations.insert = { tags, summary: `Inserts one ${entity}.`, requestBody: input, responseBody: withDetails, responseHeaders };
    operations.update = {
      tags,
      summary: `Updates one ${entity}${current}.`,
      requestBody: input,
      responseBody: withDetails,
      etag,
      responseHeaders,
    };
    operations.bulk = {
      tags,
      summary: `Inserts, updates and deletes many ${entity} rows in one transaction, all or nothing.`,
      // An update or delete of a missing row fails its item with 404 (with the item's operation and index).
      answers: [HttpStatusCatalogue.notFound.status],
      description:
        "A body sent as `application/x-ndjson` is an import: one insert object a line, read as it arrives, written in batches in one " +
        'transaction, all or nothing; it answers `{"imported": <rows>}`, and refused lines are listed in the error body\'s `lines`.',
      responseHeaders,
      requestBody: {
        type: "object",
        additionalProperties: false,
        properties: {
          insert: { type: "array", items: input },
          update: { type: "array", items: input },
          delete: { type: "array", items: schemaRef(addBulkDeleteSchema(mapping, schemas)) },
        },
      },
      otherRequestBodies: {
        [ndjsonMediaType]: { type: "string", description: `One ${entity} insert object a line.`, "x-tenon-line": input },
      },
      responseBody: {
        oneOf: [
          {
            type: "object",
            required: ["inserted", "updated", "deleted"],
            properties: {
              inserted: { type: "array", items: withDetails },
              updated: { type: "array", items: withDetails },
              deleted: { type: "array", items: { type: "integer", format: "int32" } },
            },
          },
          { type: "object", required: ["imported"], properties: { imported: { type: "integer", minimum: 0 } } },
        ],
      },
    };
    operations.patch = {
      tags,
      summary: `Changes the properties of one ${entity} that a JSON Merge Patch carries${current}.`,
      parameterNames: ["id"],
      // The version may come from If-Match instead of the body: no member is required.
      requestBody: { type: "object" },
      // RFC 7396's own media type, and plain JSON, which the server reads alike.
      requestMediaTypes: ["application/merge-patch+json", "application/json"],
      responseBody: withDetails,
      etag,
      responseHeaders,
    };
    operations.delete = {
      tags,
      summary: `Deletes one ${entity}${current}.`,
      parameterNames: ["id", "version"],
      responseHeaders,
      responseBody: {
        type: "object",
        required: ["id", "deleted"],
        properties: { id: { type: "integer", format: "int32" }, deleted: { const: true } },
      },
    };
  }
  const audience = audienceOf(mapping, role);
  const omit = Object.keys(operations).filter((handler) => {
    const needs = operationsOf[handler] ?? [];
    return needs.length > 0 && !needs.some((operation) => audience.grants(operation));
  });
  const described: HttpRouteDescriptions = feed ? { schemas, operations, webhooks: changeWebhooks } : { schemas, operations };
  return omit.length === 0 ? described : { ...described, omit };
}

/** The policy operations each generic route performs (one of them granted lets a caller call it). */
const operationsOf: Readonly<Record<string, readonly PolicyOperation[]>> = {
  selectAll: ["read"],
  get: ["read"],
  find: ["read"],
  metadata: ["read"],
  select: ["read"],
  aggregate: ["aggregate"],
  changes: ["changes"],
  createNew: ["insert"],
  insert: ["insert"],
  update: ["update"],
  patch: ["update"],
  delete: ["delete"],
  bulk: ["insert", "update", "delete"],
};

/** The name of the one component schema of a change record (the stream's `data:` and a webhook's body). */
export const changeRecordSchemaName = "ChangeRecord";

/** Adds the change record's schema to `schemas` and answers its reference. */
export function addChangeRecordSchema(schemas: Record<string, JsonSchema>): JsonSchema {
  schemas[changeRecordSchemaName] ??= {
    type: "object",
    description:
      "One committed change of an entity with a change feed. `data` is the entity as the reader serializes it after the change (references as their ids); a delete has none.",
    required: ["entity", "key", "action", "version"],
    properties: {
      entity: { type: "string", description: "The entity's name." },
      key: { type: "integer", format: "int32", description: "The entity's primary key." },
      action: { enum: ["insert", "update", "delete", "undelete"] },
      version: { type: ["integer", "null"], format: "int32", description: "The entity's version after the change." },
      data: { type: "object", description: "The entity after the change; absent for a delete." },
    },
  };
  return schemaRef(changeRecordSchemaName);
}

const webhookHeader = (name: string, description: string, pattern: string) => ({
  name,
  in: "header",
  required: true,
  description,
  schema: { type: "string", pattern },
});

/**
 * The change feed's webhook delivery (`ChangeWebhooks`): a POST of one change record to each subscription's URL,
 * signed as the Standard Webhooks specification says.
 */
export const changeWebhooks: Readonly<Record<string, Readonly<Record<string, unknown>>>> = Object.freeze({
  changeRecord: Object.freeze({
    post: {
      summary: "One committed change, POSTed to a webhook subscription's URL.",
      description:
        "Sent in commit order per entity key. `webhook-signature` is `v1,` and the base64 of the HMAC-SHA256, keyed with the bytes of the " +
        "subscription's secret after `whsec_`, of `<webhook-id>.<webhook-timestamp>.<raw body>` (Standard Webhooks 1.0). A retry or a replay " +
        "sends the same `webhook-id`: a receiver that took an event already answers 2xx and ignores it. Any answer but 2xx, or none within " +
        "the timeout, is a failed attempt.",
      operationId: "changeWebhook",
      parameters: [
        webhookHeader(
          "webhook-id",
          "The event's id (its position in the change log; the same on every retry and replay).",
          "^[0-9]{1,15}$",
        ),
        webhookHeader("webhook-timestamp", "When the attempt was sent, in seconds since the epoch.", "^[0-9]{1,12}$"),
        webhookHeader("webhook-signature", "`v1,` and the base64 signature.", "^v1,[A-Za-z0-9+/=]+$"),
        webhookHeader("tenon-subscription", "The subscription's name.", "^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"),
        webhookHeader("tenon-attempt", "The attempt's number, from 1.", "^[0-9]{1,3}$"),
      ],
      requestBody: { required: true, content: { "application/json": { schema: schemaRef(changeRecordSchemaName) } } },
      responses: { "2XX": { description: "Taken (or taken before): the event is delivered." } },
    },
  }),
});

/** The description of a change stream route (`GET {base}/changes`, or the server's for every entity). */
export function changeStreamDescription(
  what: string,
  tags: readonly string[],
  schemas: Record<string, JsonSchema>,
): HttpOperationDescription {
  const record = addChangeRecordSchema(schemas);
  return {
    tags,
    summary: `The committed changes of ${what} as Server-Sent Events, resumable with Last-Event-ID.`,
    description:
      "Each event has an `id:` (increasing in delivery order) and one `data:` line holding a change record (schema `ChangeRecord`). " +
      "Comments (`: heartbeat`) keep idle streams open. Resume after a disconnect with the `Last-Event-ID` header (or `lastEventId`); " +
      "410 tells that changes after it were purged: read the data again and reopen without it. A client that leaves too much unread is cut and resumes.",
    responseMediaTypes: ["text/event-stream"],
    responseBody: { type: "string", description: "Server-Sent Events; each `data:` is a ChangeRecord.", "x-tenon-event-data": record },
    answers: [HttpStatusCatalogue.gone.status],
    parameters: [
      {
        name: "Last-Event-ID",
        in: "header",
        required: false,
        description: "Resume after this event id.",
        schema: { type: "string", pattern: "^[0-9]{1,15}$" },
      },
      {
        name: "lastEventId",
        in: "query",
        required: false,
        description: "Resume after this event id (for clients that cannot send the header).",
        schema: { type: "string", pattern: "^[0-9]{1,15}$" },
      },
      {
        name: "where",
        in: "query",
        required: false,
        description: "A JSON array of conditions, as a select body's where, on the entity's filterable columns.",
        schema: { type: "string" },
      },
    ],
  };
}
