import type { Database } from "../engines/database.js";
import { InvalidInputError } from "../errors.js";
import type { EntityClass } from "../mapping/column-type.js";
import { EntityMapping } from "../mapping/entity-mapping.js";
import { Context } from "../session/context.js";
import { entityFromJson } from "./json-deserializer.js";
import { metadataForCaller, metadataOf } from "./json-metadata.js";
import { JsonMessages } from "./json-messages.js";
import { JsonSerializerConfig } from "./json-serializer-config.js";
import { JsonSerializer } from "./json-serializer.js";
import { jsonPlanOfEntity } from "./json-plan.js";
import type { JsonObject } from "./json-value.js";

/**
 * The ORM session with JSON: writes entities as JSON values, reads new entities
 * from JSON, and describes an entity class. `HttpContext` extends it.
 */
export class JsonContext extends Context {
  /**
   * The default of `maxDetailItems`: 10,000 items per detail array. Every item becomes a row written in the
   * request's transaction, so the bound keeps one body from holding the database for long.
   */
  static defaultMaxDetailItems = 10000;
  /** How many items a detail array of a JSON body may carry; more is an `InvalidInputError` (400) naming the property. */
  maxDetailItems: number = JsonContext.defaultMaxDetailItems;
  /** @param database where the session reads and writes. */
  constructor(database: Database) {
    super(database);
  }

  /**
   * The JSON of one entity, or of each entity of an array, as plain values ready for `JSON.stringify`.
   * Async because expanding references and details may read them. Default configuration: `default`.
   */
  toJson(entities: readonly object[], config?: JsonSerializerConfig): Promise<JsonObject[]>;
  toJson(entity: object, config?: JsonSerializerConfig): Promise<JsonObject>;
  toJson(
    value: object | readonly object[],
    config: JsonSerializerConfig = JsonSerializerConfig.default,
  ): Promise<JsonObject | JsonObject[]> {
    const serializer = new JsonSerializer(this, config);
    return Array.isArray(value) ? serializer.many(value) : serializer.one(value);
  }

  /**
   * The JSON of one entity, as a value when nothing of it expands (no promise to wait for), else as
   * `toJson` answers it. A context whose `toJson` is not this class's own (a subclass overrides it)
   * answers what that `toJson` answers, so a fast caller still writes through the override.
   * @internal The seam of hot paths such as the CRUD reader; not public API: left out of the published declarations.
   */
  toJsonNow(entity: object, config: JsonSerializerConfig = JsonSerializerConfig.default): JsonObject | Promise<JsonObject> {
    if (this.toJson !== ownToJson) return this.toJson(entity, config);
    // The flat writer alone, without a serializer, when nothing of the entity can expand or be hidden.
    const plan = jsonPlanOfEntity(entity);
    if (!plan.mapping.hasPolicy && !(plan.hasExpansions && config.expands(0))) return plan.flat(entity);
    return new JsonSerializer(this, config).oneNow(entity);
  }

  /** The JSON text of one entity or of an array of entities (see `toJson`). */
  async toJsonText(value: object | readonly object[], config: JsonSerializerConfig = JsonSerializerConfig.default): Promise<string> {
    const serializer = new JsonSerializer(this, config);
    return JSON.stringify(Array.isArray(value) ? await serializer.many(value) : await serializer.one(value));
  }

  /**
   * A new entity of `entityClass` read from a parsed JSON object and attached to this session (its
   * references and details load through it). Change-tracking columns and ignored members are never read;
   * a wrong JSON type throws `InvalidInputError` naming the property.
   */
  fromJson<T extends object>(entityClass: EntityClass<T>, json: unknown): T {
    return entityFromJson(entityClass, json, (entity) => this.attach(entity), this.maxDetailItems, this);
  }

  /** `fromJson` of a JSON text; text that is not JSON throws `InvalidInputError`. */
  fromJsonText<T extends object>(entityClass: EntityClass<T>, text: string): T {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new InvalidInputError(JsonMessages.invalidText((error as Error).message));
    }
    return this.fromJson(entityClass, json);
  }

  /**
   * The metadata of an entity class (`{entity, primaryKey, versionColumn?, properties}`: docs/crud.md); of an entity
   * with a `@Policy`, as the session's caller sees it (what it can neither read nor write left out).
   */
  metadataToJson(entityClass: EntityClass): JsonObject {
    const mapping = EntityMapping.of(entityClass);
    const policy = mapping.hasPolicy ? this.callerPolicy(mapping) : undefined;
    return policy === undefined ? metadataOf(mapping) : metadataForCaller(mapping, policy);
  }
}

/** `JsonContext`'s own `toJson`: a context with another one writes through it (see `toJsonNow`). */
const ownToJson = JsonContext.prototype.toJson;
