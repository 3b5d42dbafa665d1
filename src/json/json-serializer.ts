import type { EntityClass } from "../mapping/column-type.js";
import { EntityMapping } from "../mapping/entity-mapping.js";
import { Filter } from "../filter/filter.js";
import { Lazy, LazyList } from "../mapping/lazy.js";
import type { Context } from "../session/context.js";
import { jsonPlanOfEntity, type JsonPlan, type ReferenceWrite } from "./json-plan.js";
import type { JsonSerializerConfig } from "./json-serializer-config.js";
import type { JsonObject } from "./json-value.js";
import { entityValues } from "../policy/caller-policy.js";

const prefetchChunk = 500;

/**
 * Writes entities as JSON objects following a `JsonSerializerConfig` (the wire format: docs/entities.md, "JSON").
 * Levels: the entities passed in are level 0; a reference or detail is expanded while
 * `config.expands(level)`. An entity already being written further up the same path is not expanded
 * again (the cycle guard of the unlimited `default` preset): its `<name>Id` is written, `<name>` is left out.
 * Before expanding the references of several entities, their targets are read with one query per class.
 */
export class JsonSerializer {
  readonly #context: Context;
  readonly #config: JsonSerializerConfig;
  /** The entities being written on the current path (made on the first expansion). */
  #path: Set<object> | undefined;

  /** @param context the session that loads references and details. @param config the levels to write. */
  constructor(context: Context, config: JsonSerializerConfig) {
    this.#context = context;
    this.#config = config;
  }

  /** Writes one entity. */
  one(entity: object): Promise<JsonObject> {
    return this.#write(entity, this.#visible(jsonPlanOfEntity(entity), entity), 0);
  }

  /** Writes one entity, at once when nothing of it expands at level 0 (no promise), else as `one` does. */
  oneNow(entity: object): JsonObject | Promise<JsonObject> {
    let plan = jsonPlanOfEntity(entity);
    if (plan.mapping.hasPolicy) plan = this.#visible(plan, entity);
    return this.#config.expands(0) && plan.hasExpansions ? this.#write(entity, plan, 0) : plan.flat(entity);
  }

  /**
   * The plan of what the session's caller may read of the entity: without the members its entity's `@Policy` hides
   * from the caller on this row (the plan itself for an entity without one).
   */
  #visible(plan: JsonPlan, entity: object): JsonPlan {
    if (!plan.mapping.hasPolicy) return plan;
    const policy = this.#context.callerPolicy(plan.mapping);
    if (policy === undefined) return plan;
    return plan.without(policy.conditional.length === 0 ? policy.hiddenList : policy.hiddenOn(entityValues(entity)));
  }

  /** Writes several entities (reading their references in bulk first). */
  many(entities: readonly object[]): Promise<JsonObject[]> {
    return this.#writeMany(entities, 0);
  }

  async #writeMany(entities: readonly object[], level: number): Promise<JsonObject[]> {
    const out = new Array<JsonObject>(entities.length);
    if (entities.length === 0) return out;
    const expand = this.#config.expands(level);
    let base = jsonPlanOfEntity(entities[0]);
    if (expand && base.hasExpansions) await this.#prefetch(entities);
    for (let i = 0; i < entities.length; i++) {
      const entity = entities[i];
      if (entity.constructor !== base.mapping.entityClass) base = jsonPlanOfEntity(entity);
      const plan = this.#visible(base, entity);
      out[i] = expand && plan.hasExpansions ? await this.#write(entity, plan, level) : plan.flat(entity);
    }
    return out;
  }

  async #write(entity: object, plan: JsonPlan, level: number): Promise<JsonObject> {
    if (!this.#config.expands(level) || !plan.hasExpansions) return plan.flat(entity);
    const json: JsonObject = {};
    const path = (this.#path ??= new Set());
    path.add(entity);
    try {
      for (const field of plan.writes) {
        switch (field.kind) {
          case "scalar":
            json[field.name] = field.encode(field.get(entity));
            break;
          case "reference": {
            const lazy = field.get(entity);
            const id = lazy instanceof Lazy ? lazy.id : null;
            json[field.idName] = id;
            if (id === null) {
              json[field.name] = null;
              break;
            }
            const loaded = (lazy as Lazy<object>).value;
            const target = loaded !== undefined ? loaded : await (lazy as Lazy<object>).get();
            if (target === null) json[field.name] = null;
            else if (!path.has(target))
              json[field.name] = await this.#write(target, this.#visible(jsonPlanOfEntity(target), target), level + 1);
            break;
          }
          case "detail": {
            if (!this.#config.details) break;
            const list = field.get(entity);
            const items = list instanceof LazyList ? await (list as LazyList<object>).load() : [];
            json[field.name] = await this.#writeMany(items, level + 1);
            break;
          }
        }
      }
    } finally {
      path.delete(entity);
    }
    return json;
  }

  /** Reads, with one query per target class, the unloaded references that the entities are about to expand. */
  async #prefetch(entities: readonly object[]): Promise<void> {
    if (entities.length < 2) return;
    const wanted = new Map<EntityMapping, Set<number>>();
    for (const entity of entities) {
      const plan = jsonPlanOfEntity(entity);
      for (const field of plan.writes) {
        if (field.kind !== "reference") continue;
        const lazy = field.get(entity);
        if (!(lazy instanceof Lazy) || lazy.id === null || lazy.value !== undefined) continue;
        const target = targetMapping(field);
        if (target.isJoinEntity) continue;
        let ids = wanted.get(target);
        if (ids === undefined) wanted.set(target, (ids = new Set()));
        ids.add(lazy.id);
      }
    }
    for (const [target, ids] of wanted) {
      if (ids.size < 2) continue;
      const all = [...ids];
      for (let start = 0; start < all.length; start += prefetchChunk) {
        const filter = new Filter().add({ kind: "in", column: target.primaryKey, values: all.slice(start, start + prefetchChunk) });
        await this.#context.select(target.entityClass, filter);
      }
    }
  }
}

function targetMapping(field: ReferenceWrite): EntityMapping {
  return EntityMapping.of(field.target() as EntityClass);
}
