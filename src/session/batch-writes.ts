import type { Connection } from "../engines/database.js";
import { ConcurrentUpdateError, KeyRangeError, TenonError } from "../errors.js";
import { hasEvents, runAfterEvents, runBeforeEvents } from "../events/entity-events.js";
import type { EntityClass } from "../mapping/column-type.js";
import type { EntityMapping } from "../mapping/entity-mapping.js";
import type { Dialect } from "../sql/dialect.js";
import { statementsOf } from "../sql/entity-statements.js";
import { validateEntity } from "../validation/validate-entity.js";
import { int32Range } from "../values/integer-range.js";
import { insertRows, rowsPerStatement } from "./insert-row.js";
import { SessionMessages } from "./session-messages.js";
import { columnValues, keyValues, stamp, writableMapping } from "./write-values.js";

/** What the batch writes need of their session (`Context` lends it): they run inside its transaction. */
export interface BatchSession {
  /** The session itself: the context events and validators receive, and the one that draws and deletes one by one. */
  readonly session: {
    readonly database: { readonly dialect: Dialect };
    nextId(entityClass: EntityClass): Promise<number>;
    delete(entity: object): Promise<void>;
  };
  /** The session's connection. */
  acquire(): Promise<Connection>;
  /** The current user's name for the `*By` columns. */
  user(): string | undefined;
  /** Records that `id` was drawn for `entity` (an insert may replace a drawn key, never a chosen one). */
  markDrawn(entity: object, id: number): void;
  /** Whether `id` is the key drawn for `entity`. */
  isDrawn(entity: object, id: number): boolean;
  /** An entity was inserted: attach it and put it in the identity map. */
  inserted(mapping: EntityMapping, entity: object): void;
  /** An entity was deleted: take it out of the identity map. */
  deleted(mapping: EntityMapping, entity: object): void;
}

/** The mapping shared by every entity of a batch; entities of several classes are refused. */
function batchMapping(entities: readonly object[], operation: string): EntityMapping {
  const mapping = writableMapping(entities[0]);
  if (entities.some((entity) => entity.constructor !== entities[0].constructor))
    throw new TenonError(SessionMessages.mixedBatch(operation, mapping.name));
  return mapping;
}

/** `Context.insertAll`, inside the session's transaction. */
export async function insertAll(batch: BatchSession, entities: readonly object[]): Promise<void> {
  const mapping = batchMapping(entities, "insertAll");
  const context = batch.session;
  const statements = statementsOf(mapping, context.database.dialect);
  const events = hasEvents("insert", mapping);
  const connection = await batch.acquire();
  const keyless = entities.filter((entity) => !((mapping.primaryKey.get(entity) as number) > 0));
  const keys = await nextIds(batch, connection, mapping, keyless.length);
  keyless.forEach((entity, i) => {
    mapping.primaryKey.set(entity, keys[i]);
    batch.markDrawn(entity, keys[i]);
  });
  const user = batch.user();
  for (const entity of entities) {
    if (events) await runBeforeEvents("insert", mapping, entity, context);
    mapping.versionColumn?.set(entity, 0);
    stamp(mapping.audit.createdAt, mapping.audit.createdBy, entity, user);
    const validating = validateEntity(mapping, entity, context);
    if (validating !== undefined) await validating;
  }
  const drawn = (entity: object): boolean => batch.isDrawn(entity, mapping.idOf(entity));
  const size = rowsPerStatement(statements);
  for (let start = 0; start < entities.length; start += size) {
    await insertRows(connection, statements, entities.slice(start, start + size), drawn, () => context.nextId(mapping.entityClass));
  }
  for (const entity of entities) {
    batch.inserted(mapping, entity);
    if (events) await runAfterEvents("insert", mapping, entity, context);
  }
}

/** `Context.deleteAll`, inside the session's transaction. */
export async function deleteAll(batch: BatchSession, entities: readonly object[]): Promise<void> {
  const mapping = batchMapping(entities, "deleteAll");
  const context = batch.session;
  if (mapping.relations.length > 0) {
    for (const entity of entities) await context.delete(entity);
    return;
  }
  const dialect = context.database.dialect;
  const statements = statementsOf(mapping, dialect);
  const connection = await batch.acquire();
  const events = hasEvents("delete", mapping);
  if (events) for (const entity of entities) await runBeforeEvents("delete", mapping, entity, context);
  const by = batch.user() ?? "";
  const soft = statements.softDeleteSql !== undefined;
  const size = rowsPerStatement(statements);
  for (let start = 0; start < entities.length; start += size) {
    const chunk = entities.slice(start, start + size);
    for (const entity of chunk) stamp(mapping.audit.deletedAt, mapping.audit.deletedBy, entity, by);
    const pair = soft ? columnValues(statements.softDeleteColumns, chunk[0], dialect) : [];
    const parameters = [...pair, ...chunk.flatMap((entity) => keyValues(mapping, entity))];
    const changed = await connection.execute(statements.deleteManySql(chunk.length), parameters);
    if (changed !== chunk.length) throw new ConcurrentUpdateError(mapping.name, mapping.idOf(chunk[0]));
  }
  for (const entity of entities) {
    if (soft) mapping.versionColumn?.set(entity, (mapping.versionColumn.get(entity) as number) + 1);
    batch.deleted(mapping, entity);
    if (events) await runAfterEvents("delete", mapping, entity, context);
  }
}

/** `count` keys of the entity's sequence, drawn together where the engine can. */
async function nextIds(batch: BatchSession, connection: Connection, mapping: EntityMapping, count: number): Promise<number[]> {
  if (count === 0) return [];
  if (mapping.sequenceName === undefined) throw new TenonError(SessionMessages.noSequence(mapping.name));
  if (connection.nextIds === undefined || count === 1) {
    const keys: number[] = [];
    for (let i = 0; i < count; i++) keys.push(await batch.session.nextId(mapping.entityClass));
    return keys;
  }
  const keys = await connection.nextIds(mapping.sequenceName, mapping.tableName, mapping.primaryKey.columnName, count);
  const outside = keys.find((id) => !(id >= 1 && id <= int32Range.max));
  if (outside !== undefined) throw new KeyRangeError(SessionMessages.keyOutOfRange(mapping.name, mapping.sequenceName, outside));
  return keys;
}
