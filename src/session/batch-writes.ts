import type { Connection } from "../engines/database.js";
import { ConcurrentUpdateError, KeyRangeError, TenonError } from "../errors.js";
import type { ChangeAction } from "./change-capture.js";
import { hasEvents, runAfterEvents, runBeforeEvents } from "../events/entity-events.js";
import { type EntityClass, int32Range } from "../mapping/column-type.js";
import type { EntityMapping } from "../mapping/entity-mapping.js";
import type { Dialect } from "../sql/dialect.js";
import type { EntityStatements } from "../sql/entity-statements.js";
import { rowsSavepoint } from "../sql/savepoint-statements.js";
import { validateEntity } from "../validation/validate-entity.js";
import { insertRows, rowsPerStatement } from "./insert-row.js";
import { SessionMessages } from "./session-messages.js";
import { checkTenantReferences, sessionStatements, sessionTenant, type TenantSource, withTenant } from "./tenant-scope.js";
import { columnValues, keyValues, stamp, writableMapping, writeByKey } from "./write-values.js";
import type { Condition } from "../filter/condition.js";
import type { CallerPolicy } from "../policy/caller-policy.js";
import type { PolicyOperation } from "../policy/policy-operation.js";
import { refuseInsertedValues } from "./policy-scope.js";

/** What the batch writes need of their session (`Context` lends it): they run inside its transaction. */
export interface BatchSession {
  /** The session itself: the context events and validators receive, and the one that draws and deletes one by one. */
  readonly session: TenantSource & {
    readonly database: { readonly dialect: Dialect };
    tryGet(entityClass: EntityClass, id: number): Promise<object | null>;
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
  /** Keeps the change records of a write of `entities` until the transaction commits (when the entity has a change feed). */
  captured(mapping: EntityMapping, entities: readonly object[], action: ChangeAction, versionDelta?: number): Promise<void>;
  /** The entity's `@Policy` for the session's caller; undefined when none applies. */
  policy(mapping: EntityMapping): CallerPolicy | undefined;
  /** What a write of a governed entity checks before its events (see `SessionWrites.beforePolicyWrite`). */
  beforePolicyWrite(kind: "insert" | "update" | "delete", policy: CallerPolicy, entity: object): Promise<void>;
  /** The error of a write by key of a governed entity that changed no row (see `SessionWrites.explainNoRow`). */
  explainNoRow(policy: CallerPolicy, entity: object, operation: PolicyOperation, error: unknown): Promise<never>;
  /** In a session with a caller, the references of a write must name rows the caller may read. */
  checkReferences(mapping: EntityMapping, entity: object, tenantChecked: boolean): Promise<void> | undefined;
  /** The condition an UPDATE of a governed entity carries (see `SessionWrites.updateGuard`). */
  updateGuard(policy: CallerPolicy, statements: EntityStatements, entity: object): Promise<Condition | undefined>;
}

/** The mapping shared by every entity of a batch; entities of several classes are refused. */
function batchMapping(entities: readonly object[], operation: string): EntityMapping {
  const mapping = writableMapping(entities[0]);
  if (entities.some((entity) => entity.constructor !== entities[0].constructor))
    throw new TenonError(SessionMessages.mixedBatch(operation, mapping.name));
  return mapping;
}

/** `Context.insertAll`, inside the session's transaction. */
export async function insertAll(batch: BatchSession, entities: readonly object[], onItem?: (index: number) => void): Promise<void> {
  const mapping = batchMapping(entities, "insertAll");
  const context = batch.session;
  const statements = sessionStatements(context, mapping, context.database.dialect);
  const tenant = sessionTenant(context, mapping);
  const events = hasEvents("insert", mapping);
  const policy = batch.policy(mapping);
  const connection = await batch.acquire();
  await drawKeys(batch, entities);
  const user = batch.user();
  for (let i = 0; i < entities.length; i++) {
    onItem?.(i);
    const entity = entities[i];
    if (policy !== undefined) await batch.beforePolicyWrite("insert", policy, entity);
    if (tenant !== undefined) {
      mapping.tenantColumn?.set(entity, tenant);
      await checkTenantReferences(context, mapping, entity);
    }
    const referencing = batch.checkReferences(mapping, entity, tenant !== undefined);
    if (referencing !== undefined) await referencing;
    if (events) await runBeforeEvents("insert", mapping, entity, context);
    mapping.versionColumn?.set(entity, 0);
    stamp(mapping.audit.createdAt, mapping.audit.createdBy, entity, user);
    if (policy !== undefined) refuseInsertedValues(policy, entity);
    const validating = validateEntity(mapping, entity, context);
    if (validating !== undefined) await validating;
  }
  const drawn = (entity: object): boolean => batch.isDrawn(entity, mapping.idOf(entity));
  const size = rowsPerStatement(statements);
  for (let start = 0; start < entities.length; start += size) {
    const onRow = onItem === undefined ? undefined : (offset: number): void => onItem(start + offset);
    await insertRows(connection, statements, entities.slice(start, start + size), drawn, () => context.nextId(mapping.entityClass), onRow);
  }
  if (mapping.changeFeed !== undefined) await batch.captured(mapping, entities, "insert");
  for (let i = 0; i < entities.length; i++) {
    onItem?.(i);
    batch.inserted(mapping, entities[i]);
    if (events) await runAfterEvents("insert", mapping, entities[i], context);
  }
}

/** `Context.setSequenceIds`: keys for the entities without a positive one, drawn together where the engine can. */
export async function drawKeys(batch: BatchSession, entities: readonly object[]): Promise<void> {
  if (entities.length === 0) return;
  const mapping = batchMapping(entities, "setSequenceIds");
  // A tenant's session never keeps a chosen key, nor a caller whose policy may hide rows (see `Context.insert`).
  const scoped = sessionTenant(batch.session, mapping) !== undefined || batch.policy(mapping)?.policy.rules !== undefined;
  const keyless = entities.filter((entity) => {
    const id = mapping.primaryKey.get(entity) as number;
    return !(id > 0) || (scoped && !batch.isDrawn(entity, id));
  });
  if (keyless.length === 0) return;
  const keys = await nextIds(batch, await batch.acquire(), mapping, keyless.length);
  keyless.forEach((entity, i) => {
    mapping.primaryKey.set(entity, keys[i]);
    batch.markDrawn(entity, keys[i]);
  });
}

/** `Context.deleteAll`, inside the session's transaction. */
export async function deleteAll(batch: BatchSession, entities: readonly object[], onItem?: (index: number) => void): Promise<void> {
  const mapping = batchMapping(entities, "deleteAll");
  const context = batch.session;
  if (mapping.relations.length > 0) {
    for (let i = 0; i < entities.length; i++) {
      onItem?.(i);
      await context.delete(entities[i]);
    }
    return;
  }
  const dialect = context.database.dialect;
  const statements = sessionStatements(context, mapping, dialect);
  const tenant = sessionTenant(context, mapping);
  const policy = batch.policy(mapping);
  const guard = policy?.rows("delete");
  const connection = await batch.acquire();
  const events = hasEvents("delete", mapping);
  if (policy !== undefined)
    for (let i = 0; i < entities.length; i++) {
      onItem?.(i);
      await batch.beforePolicyWrite("delete", policy, entities[i]);
    }
  if (events)
    for (let i = 0; i < entities.length; i++) {
      onItem?.(i);
      await runBeforeEvents("delete", mapping, entities[i], context);
    }
  const by = batch.user() ?? "";
  const soft = statements.softDeleteSql !== undefined;
  const size = rowsPerStatement(statements);
  for (let start = 0; start < entities.length; start += size) {
    const chunk = entities.slice(start, start + size);
    for (const entity of chunk) stamp(mapping.audit.deletedAt, mapping.audit.deletedBy, entity, by);
    const pair = soft ? columnValues(statements.softDeleteColumns, chunk[0], dialect) : [];
    const parameters = withTenant([...pair, ...chunk.flatMap((entity) => keyValues(mapping, entity))], tenant);
    // A caller that wants to know which entity failed gets a savepoint, so that the rows can be read as they were.
    if (onItem !== undefined) await connection.execute(rowsSavepoint.set, []);
    const statement = guarded(statements, statements.deleteManySql(chunk.length), parameters, guard);
    const changed = await connection.execute(statement.sql, statement.parameters);
    if (changed !== chunk.length) {
      let stale = 0;
      const error = new ConcurrentUpdateError(mapping.name, mapping.idOf(chunk[stale]));
      if (onItem !== undefined) {
        await connection.execute(rowsSavepoint.rollback, []);
        stale = await firstStale(connection, statements, chunk, tenant, guard);
        onItem(start + stale);
        const staleError = new ConcurrentUpdateError(mapping.name, mapping.idOf(chunk[stale]));
        // With the rows as they were, a policy's refusal can be told from a stale version.
        if (policy !== undefined) await batch.explainNoRow(policy, chunk[stale], "delete", staleError);
        throw staleError;
      }
      throw error;
    }
    if (onItem !== undefined) await connection.execute(rowsSavepoint.release, []);
  }
  for (let i = 0; i < entities.length; i++) {
    onItem?.(i);
    const entity = entities[i];
    if (soft) mapping.versionColumn?.set(entity, (mapping.versionColumn.get(entity) as number) + 1);
    batch.deleted(mapping, entity);
  }
  // A hard delete leaves the entities' versions as they were; a delete's record carries the next one.
  if (mapping.changeFeed !== undefined) await batch.captured(mapping, entities, "delete", soft ? 0 : 1);
  if (events)
    for (let i = 0; i < entities.length; i++) {
      onItem?.(i);
      await runAfterEvents("delete", mapping, entities[i], context);
    }
}

/**
 * The position in `chunk` of the first entity whose row is absent or at another version, read after the failed
 * multi-row delete was undone (the caller rolls the transaction back): the failure names it, not the chunk's first.
 */
async function firstStale(
  connection: Connection,
  statements: EntityStatements,
  chunk: readonly object[],
  tenant: string | undefined,
  guard: Condition | undefined,
): Promise<number> {
  const mapping = statements.mapping;
  for (let i = 0; i < chunk.length; i++) {
    const byId = statements.selectById(mapping.idOf(chunk[i]), false, tenant, guard);
    const rows = await connection.query(byId.sql, byId.parameters, statements.exactIntegers);
    const version = mapping.versionColumn;
    if (rows.length === 0) return i;
    if (version !== undefined && Number(rows[0][mapping.columns.indexOf(version)]) !== version.get(chunk[i])) return i;
  }
  return 0;
}

/** A statement with a policy's guard ANDed to its WHERE (as it is without one). */
function guarded(
  statements: EntityStatements,
  sql: string,
  parameters: unknown[],
  guard: Condition | undefined,
): { sql: string; parameters: unknown[] } {
  return guard === undefined ? { sql, parameters } : statements.guarded(sql, parameters, guard);
}

/** How many rows one multi-row UPDATE carries: its CASE lists grow with rows times columns, so fewer than an INSERT. */
function rowsPerUpdate(columns: number): number {
  return Math.max(1, Math.min(200, Math.floor(30000 / (2 * columns + 2))));
}

/**
 * `Context.updateAll`, inside the session's transaction: before-update events, Updated pair and validation of
 * every entity, then one multi-row UPDATE per up to 200 rows by key and version (`updateManySql`), then every
 * after-update event. A chunk that changes fewer rows than it carries is undone (savepoint) and sent again row
 * by row, so that the `ConcurrentUpdateError` names the first entity whose row is gone or at another version.
 */
export async function updateAll(batch: BatchSession, entities: readonly object[], onItem?: (index: number) => void): Promise<void> {
  const mapping = batchMapping(entities, "updateAll");
  const context = batch.session;
  const dialect = context.database.dialect;
  const statements = sessionStatements(context, mapping, dialect);
  const tenant = sessionTenant(context, mapping);
  const events = hasEvents("update", mapping);
  const policy = batch.policy(mapping);
  // A governed entity's UPDATE carries the policy's condition, which may differ by row (see `updateGuard`).
  const guards = new Map<object, Condition | undefined>();
  let rowGuards = false;
  const user = batch.user();
  for (let i = 0; i < entities.length; i++) {
    onItem?.(i);
    const entity = entities[i];
    if (policy !== undefined) await batch.beforePolicyWrite("update", policy, entity);
    if (tenant !== undefined) await checkTenantReferences(context, mapping, entity);
    const referencing = batch.checkReferences(mapping, entity, tenant !== undefined);
    if (referencing !== undefined) await referencing;
    if (events) await runBeforeEvents("update", mapping, entity, context);
    stamp(mapping.audit.updatedAt, mapping.audit.updatedBy, entity, user);
    if (policy !== undefined) {
      const guard = await batch.updateGuard(policy, statements, entity);
      guards.set(entity, guard);
      rowGuards ||= guard !== policy.rows("update");
    }
    const validating = validateEntity(mapping, entity, context);
    if (validating !== undefined) await validating;
  }
  const guard = policy?.rows("update");
  const connection = await batch.acquire();
  // Rows whose conditions differ go one by one; the others together.
  const size = rowGuards ? 1 : rowsPerUpdate(statements.updateColumns.length);
  const writeOne = (one: object): Promise<void> => {
    const writing = writeByKey(connection, statements, statements.updateSql, statements.updateColumns, one, tenant, guards.get(one));
    return policy === undefined ? writing : writing.catch((error: unknown) => batch.explainNoRow(policy, one, "update", error));
  };
  for (let start = 0; start < entities.length; start += size) {
    const chunk = entities.slice(start, start + size);
    if (chunk.length === 1) {
      await writeOne(chunk[0]);
      continue;
    }
    const rows = chunk.map((entity) => columnValues(statements.updateColumns, entity, dialect));
    const parameters: unknown[] = [];
    for (let column = 0; column < statements.updateColumns.length; column++) {
      for (let row = 0; row < chunk.length; row++) parameters.push(mapping.idOf(chunk[row]), rows[row][column]);
    }
    for (const entity of chunk) parameters.push(...keyValues(mapping, entity));
    withTenant(parameters, tenant);
    await connection.execute(rowsSavepoint.set, []);
    const statement = guarded(statements, statements.updateManySql(chunk.length), parameters, guard);
    const complete = (await connection.execute(statement.sql, statement.parameters)) === chunk.length;
    if (!complete) await connection.execute(rowsSavepoint.rollback, []);
    await connection.execute(rowsSavepoint.release, []);
    if (complete) {
      const version = mapping.versionColumn;
      if (version !== undefined) for (const entity of chunk) version.set(entity, (version.get(entity) as number) + 1);
      continue;
    }
    for (let row = 0; row < chunk.length; row++) {
      onItem?.(start + row);
      await writeOne(chunk[row]);
    }
  }
  for (let i = 0; i < entities.length; i++) {
    onItem?.(i);
    // An instance read before the update is stale: the next read of the key reads the committed row.
    batch.deleted(mapping, entities[i]);
  }
  if (mapping.changeFeed !== undefined) await batch.captured(mapping, entities, "update");
  if (events)
    for (let i = 0; i < entities.length; i++) {
      onItem?.(i);
      await runAfterEvents("update", mapping, entities[i], context);
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
