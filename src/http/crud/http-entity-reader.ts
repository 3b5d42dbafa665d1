import type { EntityClass } from "../../mapping/column-type.js";
import { EntityMapping } from "../../mapping/entity-mapping.js";
import { JsonSerializerConfig } from "../../json/json-serializer-config.js";
import { decodeColumnJson } from "../../json/column-json.js";
import { HttpNotFoundError } from "../http-errors.js";
import { filterColumnsOf } from "./filter-columns.js";
import { effectiveLimit, parseFilterBody } from "./http-filter-body.js";
import { HttpFilterParameters } from "./http-filter-parameters.js";
import type { HttpContext } from "./http-context.js";
import { Filter } from "../../filter/filter.js";

/** What Select and SelectAll answer: every row the filter matches counted, one page of them as JSON. */
export interface HttpEntityPage {
  /** The number of rows the filter matches. */
  readonly count: number;
  /** The page, as JSON. */
  readonly data: unknown[];
}

/**
 * The standard read logic for one entity class over HTTP (SPEC.md TTHttpEntityReader<T>). The context is
 * borrowed, not owned.
 */
export class HttpEntityReader<T extends object> {
  /** The entity class. */
  readonly entityClass: EntityClass<T>;
  /** The request's session. */
  readonly context: HttpContext;
  /** The filter limits in force. */
  readonly filterParameters: HttpFilterParameters;
  /** Called with the filter (built from the body, or empty for SelectAll) before the count and the select. */
  onAddEntityFilter: ((filter: Filter) => void | Promise<void>) | undefined = undefined;
  /** Called on each entity before it is serialized. */
  onBeforeSerializeEntity: ((entity: T) => void | Promise<void>) | undefined = undefined;
  readonly #mapping: EntityMapping<T>;

  /** @param entityClass the entity. @param context the request's session. @param filterParameters the filter limits. */
  constructor(entityClass: EntityClass<T>, context: HttpContext, filterParameters: HttpFilterParameters = HttpFilterParameters.defaults) {
    this.entityClass = entityClass;
    this.context = context;
    this.filterParameters = filterParameters;
    this.#mapping = EntityMapping.of(entityClass);
  }

  /** The entity with this id, with details; `HttpNotFoundError` (404) when absent. */
  get(id: number, config: JsonSerializerConfig = JsonSerializerConfig.withDetails): Promise<unknown> {
    return this.#one(id, config);
  }

  /** The entity with this id, entity only; `HttpNotFoundError` (404) when absent. */
  find(id: number, config: JsonSerializerConfig = JsonSerializerConfig.entityOnly): Promise<unknown> {
    return this.#one(id, config);
  }

  /** Every row (up to the page ceiling), with relations: `{count, data}`. */
  async selectAll(config: JsonSerializerConfig = JsonSerializerConfig.withRelations): Promise<HttpEntityPage> {
    const filter = new Filter();
    filter.includeDeleted = this.filterParameters.includeDeleted;
    filter.limit = effectiveLimit(undefined, this.filterParameters);
    return this.#page(filter, config);
  }

  /** The rows a filter body selects (API.md "Filter body"), with relations: `{count, data}`. A bad body answers 400. */
  async select(body: unknown, config: JsonSerializerConfig = JsonSerializerConfig.withRelations): Promise<HttpEntityPage> {
    const filter = parseFilterBody(body, filterColumnsOf(this.#mapping), decodeColumnJson, this.filterParameters);
    return this.#page(filter, config);
  }

  /** The entity's metadata (API.md "Metadata"). */
  metadata(): unknown {
    return this.context.metadataToJson(this.entityClass);
  }

  #one(id: number, config: JsonSerializerConfig): Promise<unknown> {
    // No async function: on the embedded engine an entity whose JSON needs no further read is read and
    // written without a promise of its own, and the server's reaction to the one answered is the only one.
    try {
      // The context's fast path reads through an overriding tryGet itself (see Context.tryGetNow).
      const found = this.context.tryGetNow(this.entityClass, id, { includeDeleted: this.filterParameters.includeDeleted });
      if (found instanceof Promise) return found.then((entity) => this.#json(entity, id, config));
      const json = this.#json(found, id, config);
      return json instanceof Promise ? json : Promise.resolve(json);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #json(entity: T | null, id: number, config: JsonSerializerConfig): unknown {
    if (entity === null) throw new HttpNotFoundError(id);
    const hook = this.onBeforeSerializeEntity;
    if (hook !== undefined) return Promise.resolve(hook.call(this, entity)).then(() => this.#toJson(entity, config));
    return this.#toJson(entity, config);
  }

  /** The entity's JSON; the context's fast path writes through an overriding toJson itself (see JsonContext.toJsonNow). */
  #toJson(entity: T, config: JsonSerializerConfig): unknown {
    return this.context.toJsonNow(entity, config);
  }

  async #page(filter: Filter, config: JsonSerializerConfig): Promise<HttpEntityPage> {
    if (this.onAddEntityFilter !== undefined) await this.onAddEntityFilter(filter);
    const { count, entities } = await this.context.selectPage(this.entityClass, filter);
    if (this.onBeforeSerializeEntity !== undefined) for (const entity of entities) await this.onBeforeSerializeEntity(entity);
    return { count, data: await this.context.toJson(entities, config) };
  }
}
