import type { EntityClass } from "../../mapping/column-type.js";
import { EntityMapping } from "../../mapping/entity-mapping.js";
import { decodeColumnJson } from "../../json/column-json.js";
import { JsonContext } from "../../json/json-context.js";
import { jsonPropertyName } from "../../json/json-visibility.js";
import { HttpNotFoundError } from "../exchange/http-errors.js";

/**
 * The session of an HTTP request: the JSON context plus what the generic reader
 * and writer need. An application's per-request context class usually creates one lazily, on first use,
 * so that anonymous and unknown requests never touch the database (the context is built before authentication).
 */
export class HttpContext extends JsonContext {
  /** The primary key a JSON entity body carries, or undefined when it has none; a malformed one is a 400 naming the property. */
  getId<T extends object>(entityClass: EntityClass<T>, json: unknown): number | undefined {
    const mapping = EntityMapping.of(entityClass);
    if (typeof json !== "object" || json === null || Array.isArray(json)) return undefined;
    const value = (json as Record<string, unknown>)[jsonPropertyName(mapping.primaryKey)];
    if (value === undefined || value === null) return undefined;
    return decodeColumnJson(mapping.primaryKey, value) as number;
  }

  /**
   * Sets the version column to the version the client sent, so that the WHERE of the next update or
   * delete checks it. Does nothing when the entity has no `@VersionColumn`.
   */
  setVersionId<T extends object>(entity: T, version: number): void {
    EntityMapping.of(entity.constructor as EntityClass<T>).versionColumn?.set(entity, version);
  }

  /** Deletes an entity (the ORM session's delete). */
  override delete<T extends object>(entity: T): Promise<void>;
  /**
   * Deletes an entity by primary key and version: `HttpNotFoundError`
   * (404) for an absent id, `ConcurrentUpdateError` (409) for a stale version.
   */
  override delete<T extends object>(entityClass: EntityClass<T>, id: number, version: number): Promise<void>;
  override async delete<T extends object>(entityOrClass: T | EntityClass<T>, id?: number, version?: number): Promise<void> {
    if (typeof entityOrClass !== "function") return super.delete(entityOrClass);
    const entity = await this.tryGet(entityOrClass, id as number);
    if (entity === null) throw new HttpNotFoundError(id as number);
    this.setVersionId(entity, version as number);
    await super.delete(entity);
  }
}
