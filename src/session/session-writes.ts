import type { Connection } from "../engines/database.js";
import { KeyRangeError, TenonError } from "../errors.js";
import { runAfterEvents, runBeforeEvents, type EntityEventKind } from "../events/entity-events.js";
import { type EntityClass, int32Range } from "../mapping/column-type.js";
import { type ColumnMapping, EntityMapping } from "../mapping/entity-mapping.js";
import type { EntityStatements } from "../sql/entity-statements.js";
import { checkTenantReferences, sessionStatements, sessionTenant } from "./tenant-scope.js";
import { validateEntity } from "../validation/validate-entity.js";
import type { BatchSession } from "./batch-writes.js";
import type { Context } from "./context.js";
import type { EntityMaterializer } from "./entity-materializer.js";
import type { IdentityMap } from "./identity-map.js";
import { insertRow } from "./insert-row.js";
import type { SessionConnection } from "./session-connection.js";
import { SessionMessages } from "./session-messages.js";
import type { TransactionScope } from "./transaction-scope.js";
import { type ChangeAction, changeRecorder } from "./change-capture.js";
import { applyRelations, isSingleStatement, restoreRelations, stamp, writableMapping, writeByKey } from "./write-values.js";

/**
 * The writes of one session (`Context` answers them): keys drawn from sequences, and each write with its
 * events, change-tracking columns and validation, in a transaction unless it is one statement. Also what
 * the batch writes (batch-writes.ts) use of the session.
 */
export class SessionWrites implements BatchSession {
  /** The session: the context that events and validators receive, and whose `transaction` a write runs in. */
  readonly session: Context;
  readonly #connection: SessionConnection;
  readonly #transaction: TransactionScope;
  readonly #identityMap: IdentityMap;
  readonly #entities: EntityMaterializer;
  /** The key each entity got from `setSequenceId`: an insert may replace a drawn key, never a chosen one. */
  #drawnKeys: WeakMap<object, number> | undefined = undefined;

  /** @param session the context. @param connection, transaction, identityMap, entities its parts. */
  constructor(
    session: Context,
    connection: SessionConnection,
    transaction: TransactionScope,
    identityMap: IdentityMap,
    entities: EntityMaterializer,
  ) {
    this.session = session;
    this.#connection = connection;
    this.#transaction = transaction;
    this.#identityMap = identityMap;
    this.#entities = entities;
  }

  /** The session's connection. */
  acquire(): Promise<Connection> {
    return this.#connection.acquire();
  }

  /** The current user's name for the `*By` columns. */
  user(): string | undefined {
    return this.session.onGetCurrentUser?.();
  }

  /** Records that `id` was drawn for `entity`. */
  markDrawn(entity: object, id: number): void {
    (this.#drawnKeys ??= new WeakMap()).set(entity, id);
  }

  /** Whether `id` is the key drawn for `entity`. */
  isDrawn(entity: object, id: unknown): boolean {
    return this.#drawnKeys?.get(entity) === id;
  }

  /** An entity was inserted: attach it and put it in the identity map. */
  inserted(mapping: EntityMapping, entity: object): void {
    this.#entities.attach(mapping, entity);
    this.#identityMap.set(mapping.entityClass, mapping.idOf(entity), entity);
  }

  /** An entity was deleted: take it out of the identity map. */
  deleted(mapping: EntityMapping, entity: object): void {
    this.#identityMap.delete(mapping.entityClass, mapping.idOf(entity));
  }

  /**
   * Keeps the change records of a write of `entities` (of `mapping`'s class) until the transaction commits,
   * when the entity has a change feed; nothing otherwise.
   */
  async captured(mapping: EntityMapping, entities: readonly object[], action: ChangeAction, versionDelta = 0): Promise<void> {
    if (mapping.changeFeed === undefined) return;
    this.#transaction.keep(await changeRecorder().capture(this.session, mapping, entities, action, versionDelta));
  }

  /** `Context.nextId`: the next key of the class's sequence, refused outside the int32 key range. */
  async nextId(entityClass: EntityClass): Promise<number> {
    const mapping = EntityMapping.of(entityClass);
    if (mapping.sequenceName === undefined) throw new TenonError(SessionMessages.noSequence(mapping.name));
    const connection = await this.#connection.acquire();
    const id = await connection.nextId(mapping.sequenceName, mapping.tableName, mapping.primaryKey.columnName);
    if (!(id >= 1 && id <= int32Range.max)) throw new KeyRangeError(SessionMessages.keyOutOfRange(mapping.name, mapping.sequenceName, id));
    return id;
  }

  /** `Context.insert`. */
  insert(entity: object): Promise<void> {
    return this.#write("insert", entity, async (connection, statements, tenant) => {
      const mapping = statements.mapping;
      const id = mapping.primaryKey.get(entity);
      // A tenant's session never keeps a chosen key: a taken one would tell that another tenant's row has it.
      const drawn = typeof id !== "number" || !(id > 0) || this.isDrawn(entity, id) || tenant !== undefined;
      if (!(typeof id === "number" && id > 0) || (tenant !== undefined && !this.isDrawn(entity, id)))
        mapping.primaryKey.set(entity, await this.session.nextId(mapping.entityClass));
      if (tenant !== undefined) {
        mapping.tenantColumn?.set(entity, tenant);
        await checkTenantReferences(this.session, mapping, entity);
      }
      mapping.versionColumn?.set(entity, 0);
      const validating = this.#stampAndValidate(mapping, entity, mapping.audit.createdAt, mapping.audit.createdBy);
      if (validating !== undefined) await validating;
      await insertRow(connection, statements, entity, drawn, () => this.session.nextId(mapping.entityClass));
      this.inserted(mapping, entity);
      if (mapping.changeFeed !== undefined) await this.captured(mapping, [entity], "insert");
    });
  }

  /** `Context.update`. */
  update(entity: object): Promise<void> {
    return this.#write("update", entity, async (connection, statements, tenant) => {
      const mapping = statements.mapping;
      if (tenant !== undefined) await checkTenantReferences(this.session, mapping, entity);
      const validating = this.#stampAndValidate(mapping, entity, mapping.audit.updatedAt, mapping.audit.updatedBy);
      if (validating !== undefined) await validating;
      await writeByKey(connection, statements, statements.updateSql, statements.updateColumns, entity, tenant);
      // An instance of this key read before the update is stale, and the written one may lack columns that
      // its source (a JSON body) never carries: the next read of the key reads the committed row.
      this.deleted(mapping, entity);
      if (mapping.changeFeed !== undefined) await this.captured(mapping, [entity], "update");
    });
  }

  /** `Context.delete`. */
  delete(entity: object): Promise<void> {
    return this.#write("delete", entity, async (connection, statements, tenant) => {
      const mapping = statements.mapping;
      if (statements.softDeleteSql !== undefined) {
        const by = this.user() ?? "";
        stamp(mapping.audit.deletedAt, mapping.audit.deletedBy, entity, by);
        await applyRelations(connection, statements, entity, { at: mapping.audit.deletedAt?.get(entity) as Date, by });
        await writeByKey(connection, statements, statements.softDeleteSql, statements.softDeleteColumns, entity, tenant);
      } else {
        await applyRelations(connection, statements, entity);
        await writeByKey(connection, statements, statements.deleteSql, [], entity, tenant);
      }
      this.deleted(mapping, entity);
      if (mapping.changeFeed !== undefined) await this.captured(mapping, [entity], "delete");
    });
  }

  /** `Context.undelete`. */
  async undelete(entity: object): Promise<void> {
    const mapping = writableMapping(entity);
    const statements = sessionStatements(this.session, mapping, this.session.database.dialect);
    const tenant = sessionTenant(this.session, mapping);
    const undeleteSql = statements.undeleteSql;
    if (undeleteSql === undefined) throw new TenonError(SessionMessages.undeleteWithoutDeletedAt(mapping.name));
    await this.session.transaction(async () => {
      const connection = await this.#connection.acquire();
      const deletedAt = mapping.audit.deletedAt?.get(entity);
      stamp(mapping.audit.updatedAt, mapping.audit.updatedBy, entity, this.user());
      await writeByKey(connection, statements, undeleteSql, statements.undeleteColumns, entity, tenant);
      if (deletedAt instanceof Date) await restoreRelations(connection, statements, entity, deletedAt, this.user());
      mapping.audit.deletedAt?.set(entity, null);
      mapping.audit.deletedBy?.set(entity, mapping.audit.deletedBy.type.nullable ? null : "");
      if (mapping.changeFeed !== undefined) await this.captured(mapping, [entity], "undelete");
      this.#identityMap.set(mapping.entityClass, mapping.idOf(entity), entity);
    });
  }

  /**
   * Fills a change-tracking pair, then validates the entity (after the before-events); answers the
   * validation's promise, or undefined when it ran at once and passed.
   */
  #stampAndValidate(
    mapping: EntityMapping,
    entity: object,
    at: ColumnMapping | undefined,
    by: ColumnMapping | undefined,
  ): Promise<void> | undefined {
    stamp(at, by, entity, this.user());
    return validateEntity(mapping, entity, this.session);
  }

  /**
   * Runs one write with its events in a transaction. A write that runs no application code (`isSingleStatement`)
   * is one statement, atomic by itself: it runs without BEGIN and COMMIT, saving two round trips to a server
   * engine. (Drawing a key from a sequence before an insert is not transactional on any engine anyway.)
   */
  async #write(
    kind: EntityEventKind,
    entity: object,
    statement: (connection: Connection, statements: EntityStatements, tenant: string | undefined) => Promise<void>,
  ): Promise<void> {
    const mapping = writableMapping(entity);
    const statements = sessionStatements(this.session, mapping, this.session.database.dialect);
    // The session's tenant for a scoped entity (and TenantRequiredError without one), before anything runs.
    const tenant = sessionTenant(this.session, mapping);
    // A change record is written in the write's transaction: an entity with a change feed always has one.
    if (!this.#transaction.active && mapping.changeFeed === undefined && isSingleStatement(kind, mapping)) {
      await statement(this.#connection.now() ?? (await this.#connection.acquire()), statements, tenant);
      return;
    }
    const session = this.session;
    await session.transaction(async () => {
      await runBeforeEvents(kind, mapping, entity, session);
      await statement(await this.#connection.acquire(), statements, tenant);
      await runAfterEvents(kind, mapping, entity, session);
    });
  }
}
