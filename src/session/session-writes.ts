import type { Connection } from "../engines/database.js";
import { ConcurrentUpdateError, KeyRangeError, PolicyRefusedError, TenonError } from "../errors.js";
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
import { applyRelations, isSingleStatement, restoreRelations, stamp, writableMapping, writeByKey, writeByKeyNow } from "./write-values.js";
import { type CallerPolicy, entityValues } from "../policy/caller-policy.js";
import { conditionHolds } from "../filter/condition-match.js";
import { PolicyMessages } from "../policy/policy-messages.js";
import type { PolicyOperation } from "../policy/policy-operation.js";
import {
  checkPolicyReferences,
  enforceInsert,
  enforceUpdate,
  needsStoredRow,
  checkUpdatedValues,
  refuseInsertedValues,
  requireGrant,
  type PolicyLookup,
} from "./policy-scope.js";
import type { SessionReads } from "./session-reads.js";
import type { Condition } from "../filter/condition.js";

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
  readonly #policies: PolicyLookup;
  readonly #reads: SessionReads;
  /** The key each entity got from `setSequenceId`: an insert may replace a drawn key, never a chosen one. */
  #drawnKeys: WeakMap<object, number> | undefined = undefined;
  /** The entity whose key was drawn first in the session, and its key: most sessions draw one, kept without a WeakMap. */
  #firstDrawn: object | undefined = undefined;
  #firstDrawnKey = 0;

  /** @param session the context. @param connection, transaction, identityMap, entities, policies, reads its parts. */
  constructor(
    session: Context,
    connection: SessionConnection,
    transaction: TransactionScope,
    identityMap: IdentityMap,
    entities: EntityMaterializer,
    policies: PolicyLookup,
    reads: SessionReads,
  ) {
    this.session = session;
    this.#connection = connection;
    this.#transaction = transaction;
    this.#identityMap = identityMap;
    this.#entities = entities;
    this.#policies = policies;
    this.#reads = reads;
  }

  /** The entity's policy for the session's caller (undefined: none applies). */
  policy(mapping: EntityMapping): CallerPolicy | undefined {
    return mapping.hasPolicy ? this.#policies.callerPolicy(mapping) : undefined;
  }

  /**
   * What a governed entity's write checks before its events run: that a rule grants the caller the operation,
   * that no member the caller may not write changes (an update compares with the stored row as the update's rules
   * let the caller see it: one it cannot see is refused as absent), and the values the policy sets.
   */
  async beforePolicyWrite(kind: "insert" | "update" | "delete", policy: CallerPolicy, entity: object): Promise<void> {
    requireGrant(policy, kind);
    const mapping = policy.policy.mapping;
    if (kind === "insert") {
      enforceInsert(policy, entity);
    } else if (kind === "update") {
      let stored: object | undefined;
      if (needsStoredRow(policy)) {
        stored = (await this.#reads.storedRow(mapping, mapping.idOf(entity), "update")) ?? (await this.refusal(policy, entity, "update"));
      }
      enforceUpdate(policy, entity, stored);
    } else {
      const rows = policy.rows("delete");
      if (rows !== undefined && !conditionHolds(rows, entityValues(entity))) await this.refusal(policy, entity, "delete");
    }
  }

  /**
   * The error of a write of a governed entity whose row the operation's rules do not reach: `PolicyRefusedError`
   * when the caller may read the row, else `ConcurrentUpdateError`, the answer of a row that is gone.
   */
  async refusal(policy: CallerPolicy, entity: object, operation: PolicyOperation): Promise<never> {
    const mapping = policy.policy.mapping;
    const id = mapping.idOf(entity);
    if ((await this.#reads.storedRow(mapping, id, "read")) !== null)
      throw new PolicyRefusedError(mapping.name, operation, PolicyMessages.refused(mapping.name, operation));
    throw new ConcurrentUpdateError(mapping.name, id);
  }

  /**
   * A write by key of a governed entity that changed no row: a stale version when the operation's rules reach the
   * row (the `ConcurrentUpdateError` stands), otherwise what `refusal` answers.
   */
  async explainNoRow(policy: CallerPolicy, entity: object, operation: PolicyOperation, error: unknown): Promise<never> {
    if (!(error instanceof ConcurrentUpdateError)) throw error;
    const mapping = policy.policy.mapping;
    if ((await this.#reads.storedRow(mapping, mapping.idOf(entity), operation)) !== null) throw error;
    return this.refusal(policy, entity, operation);
  }

  /**
   * In a session with a caller, the references of a write must name rows the caller may read: the check's promise,
   * or undefined (no promise to wait for) in a session without a caller.
   */
  checkReferences(mapping: EntityMapping, entity: object, tenantChecked: boolean): Promise<void> | undefined {
    if (this.session.onGetCurrentCaller === undefined || this.session.unscoped) return undefined;
    return checkPolicyReferences(this.session, this.#policies, mapping, entity, tenantChecked);
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
    if (this.#firstDrawn === undefined || this.#firstDrawn === entity) {
      this.#firstDrawn = entity;
      this.#firstDrawnKey = id;
    } else {
      (this.#drawnKeys ??= new WeakMap()).set(entity, id);
    }
  }

  /** Whether `id` is the key drawn for `entity`. */
  isDrawn(entity: object, id: unknown): boolean {
    if (entity === this.#firstDrawn) return this.#firstDrawnKey === id;
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
    return checkedKey(mapping, await connection.nextId(mapping.sequenceName, mapping.tableName, mapping.primaryKey.columnName));
  }

  /** `nextId` at once where the engine draws keys synchronously (`Connection.nextIdNow`), else its promise. */
  nextIdNow(entityClass: EntityClass): number | Promise<number> {
    const mapping = EntityMapping.of(entityClass);
    const sequence = mapping.sequenceName;
    const id =
      sequence === undefined ? undefined : this.#connection.now()?.nextIdNow?.(sequence, mapping.tableName, mapping.primaryKey.columnName);
    return id === undefined ? this.nextId(entityClass) : checkedKey(mapping, id);
  }

  /** `Context.insert`. */
  insert(entity: object): Promise<void> {
    return this.#write("insert", entity, async (connection, statements, tenant, policy) => {
      const mapping = statements.mapping;
      const id = mapping.primaryKey.get(entity);
      // A tenant's session never keeps a chosen key: a taken one would tell that another tenant's row has it; nor does
      // a caller whose policy's rules may hide rows from it.
      const hiding = tenant !== undefined || policy?.policy.rules !== undefined;
      const drawn = typeof id !== "number" || !(id > 0) || this.isDrawn(entity, id) || hiding;
      if (!(typeof id === "number" && id > 0) || (hiding && !this.isDrawn(entity, id)))
        mapping.primaryKey.set(entity, await this.session.nextId(mapping.entityClass));
      if (tenant !== undefined) {
        mapping.tenantColumn?.set(entity, tenant);
        await checkTenantReferences(this.session, mapping, entity);
      }
      const referencing = this.checkReferences(mapping, entity, tenant !== undefined);
      if (referencing !== undefined) await referencing;
      mapping.versionColumn?.set(entity, 0);
      const validating = this.#stampAndValidate(mapping, entity, mapping.audit.createdAt, mapping.audit.createdBy, policy);
      if (validating !== undefined) await validating;
      await insertRow(connection, statements, entity, drawn, () => this.session.nextId(mapping.entityClass));
      this.inserted(mapping, entity);
      if (mapping.changeFeed !== undefined) await this.captured(mapping, [entity], "insert");
    });
  }

  /**
   * `Context.insert`, at once where it can be (a plain write, see `#plainConnection`, on an engine that runs
   * statements synchronously): undefined when the row is written, otherwise the promise of the write. Throws
   * what the promise would reject with when it failed at once.
   */
  insertNow(entity: object): Promise<void> | undefined {
    const mapping = writableMapping(entity);
    const connection = this.#plainConnection("insert", mapping);
    if (connection === undefined) return this.insert(entity);
    const statements = sessionStatements(this.session, mapping, this.session.database.dialect);
    const id = mapping.primaryKey.get(entity);
    const chosen = typeof id === "number" && id > 0;
    const drawn = !chosen || this.isDrawn(entity, id);
    if (chosen) return this.#insertPlain(connection, statements, entity, drawn);
    const next = this.session.nextIdNow(mapping.entityClass);
    if (typeof next !== "number") {
      return next.then((key) => {
        mapping.primaryKey.set(entity, key);
        return this.#insertPlain(connection, statements, entity, drawn);
      });
    }
    mapping.primaryKey.set(entity, next);
    return this.#insertPlain(connection, statements, entity, drawn);
  }

  /** The rest of a plain insert, once the entity has its key: the steps of `insert`'s statement that apply to it. */
  #insertPlain(connection: Connection, statements: EntityStatements, entity: object, drawn: boolean): Promise<void> | undefined {
    const mapping = statements.mapping;
    mapping.versionColumn?.set(entity, 0);
    stamp(mapping.audit.createdAt, mapping.audit.createdBy, entity, this.user());
    // A plain write's entity has no `@Validator` methods: this validation throws or answers undefined.
    validateEntity(mapping, entity, this.session);
    const inserting = insertRow(connection, statements, entity, drawn, () => this.session.nextId(mapping.entityClass));
    if (inserting !== undefined) return inserting.then(() => this.inserted(mapping, entity));
    this.inserted(mapping, entity);
    return undefined;
  }

  /** `Context.update`, at once where it can be, as `insertNow`. */
  updateNow(entity: object): Promise<void> | undefined {
    const mapping = writableMapping(entity);
    const connection = this.#plainConnection("update", mapping);
    if (connection === undefined) return this.update(entity);
    const statements = sessionStatements(this.session, mapping, this.session.database.dialect);
    stamp(mapping.audit.updatedAt, mapping.audit.updatedBy, entity, this.user());
    // A plain write's entity has no `@Validator` methods: this validation throws or answers undefined.
    validateEntity(mapping, entity, this.session);
    const writing = writeByKeyNow(connection, statements, statements.updateSql, statements.updateColumns, entity, undefined);
    if (writing !== undefined) return writing.then(() => this.#updatedPlainly(mapping, entity));
    this.#updatedPlainly(mapping, entity);
    return undefined;
  }

  /** A plain update wrote `entity`: what `update` does after its statement, and a reload may read less (`SessionReads.wrote`). */
  #updatedPlainly(mapping: EntityMapping, entity: object): void {
    // As in `update`: the next read of the key reads the committed row.
    this.deleted(mapping, entity);
    this.#reads.wrote(entity);
  }

  /**
   * The connection of a plain write of `kind`, when it is one and the connection is at hand without waiting: a write
   * outside a transaction that runs no application code and writes no change record (so one statement, as `#write`
   * sends it), in a session where no caller's scope applies (no tenant, no policy, no check of references: unscoped,
   * or without tenant column, policy or caller). Such a write is the general path's steps minus those that do not
   * apply, run without a promise where the engine runs statements synchronously. Undefined otherwise.
   */
  #plainConnection(kind: EntityEventKind, mapping: EntityMapping): Connection | undefined {
    const session = this.session;
    if (!session.unscoped && (mapping.tenantColumn !== undefined || mapping.hasPolicy || session.onGetCurrentCaller !== undefined))
      return undefined;
    if (this.#transaction.active || mapping.changeFeed !== undefined || !isSingleStatement(kind, mapping)) return undefined;
    return this.#connection.now();
  }

  /** `Context.update`. */
  update(entity: object): Promise<void> {
    return this.#write("update", entity, async (connection, statements, tenant, policy) => {
      const mapping = statements.mapping;
      if (tenant !== undefined) await checkTenantReferences(this.session, mapping, entity);
      const referencing = this.checkReferences(mapping, entity, tenant !== undefined);
      if (referencing !== undefined) await referencing;
      stamp(mapping.audit.updatedAt, mapping.audit.updatedBy, entity, this.user());
      const guard = policy === undefined ? undefined : await this.updateGuard(policy, statements, entity);
      const validating = validateEntity(mapping, entity, this.session);
      if (validating !== undefined) await validating;
      if (guard === undefined) await writeByKey(connection, statements, statements.updateSql, statements.updateColumns, entity, tenant);
      else
        await writeByKey(connection, statements, statements.updateSql, statements.updateColumns, entity, tenant, guard).catch(
          (error: unknown) => this.explainNoRow(policy as CallerPolicy, entity, "update", error),
        );
      // An instance of this key read before the update is stale, and the written one may lack columns that
      // its source (a JSON body) never carries: the next read of the key reads the committed row.
      this.deleted(mapping, entity);
      if (mapping.changeFeed !== undefined) await this.captured(mapping, [entity], "update");
    });
  }

  /** `Context.delete`. */
  delete(entity: object): Promise<void> {
    return this.#write("delete", entity, async (connection, statements, tenant, policy) => {
      const mapping = statements.mapping;
      const guard = policy?.rows("delete");
      let deleting: Promise<void>;
      if (statements.softDeleteSql !== undefined) {
        const by = this.user() ?? "";
        stamp(mapping.audit.deletedAt, mapping.audit.deletedBy, entity, by);
        await applyRelations(connection, statements, entity, { at: mapping.audit.deletedAt?.get(entity) as Date, by });
        deleting = writeByKey(connection, statements, statements.softDeleteSql, statements.softDeleteColumns, entity, tenant, guard);
      } else {
        await applyRelations(connection, statements, entity);
        deleting = writeByKey(connection, statements, statements.deleteSql, [], entity, tenant, guard);
      }
      // A governed row the DELETE did not reach: a stale version, a refusal, or a row that is gone.
      if (guard === undefined) await deleting;
      else await deleting.catch((error: unknown) => this.explainNoRow(policy as CallerPolicy, entity, "delete", error));
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
    // An undelete is an update: the update's rules decide which rows the caller brings back.
    const policy = this.policy(mapping);
    if (policy !== undefined) requireGrant(policy, "update");
    const guard = policy?.rows("update");
    await this.session.transaction(async () => {
      const connection = await this.#connection.acquire();
      const deletedAt = mapping.audit.deletedAt?.get(entity);
      stamp(mapping.audit.updatedAt, mapping.audit.updatedBy, entity, this.user());
      await writeByKey(connection, statements, undeleteSql, statements.undeleteColumns, entity, tenant, guard);
      if (deletedAt instanceof Date) await restoreRelations(connection, statements, entity, deletedAt, this.user());
      mapping.audit.deletedAt?.set(entity, null);
      mapping.audit.deletedBy?.set(entity, mapping.audit.deletedBy.type.nullable ? null : "");
      if (mapping.changeFeed !== undefined) await this.captured(mapping, [entity], "undelete");
      this.#identityMap.set(mapping.entityClass, mapping.idOf(entity), entity);
    });
  }

  /**
   * Fills a change-tracking pair, then (of a governed entity's insert) checks the values against the policy, then
   * validates the entity (after the before-events); answers the validation's promise, or undefined when it ran at
   * once and passed.
   */
  #stampAndValidate(
    mapping: EntityMapping,
    entity: object,
    at: ColumnMapping | undefined,
    by: ColumnMapping | undefined,
    policy?: CallerPolicy,
  ): Promise<void> | undefined {
    stamp(at, by, entity, this.user());
    if (policy !== undefined) refuseInsertedValues(policy, entity);
    return validateEntity(mapping, entity, this.session);
  }

  /**
   * The condition an UPDATE of a governed entity carries: the update's rows, and what the rules demand of the members
   * the update leaves as they are (`checkUpdatedValues`, which refuses values no rule allows).
   */
  async updateGuard(policy: CallerPolicy, statements: EntityStatements, entity: object): Promise<Condition | undefined> {
    const mapping = statements.mapping;
    const writes = (column: ColumnMapping): boolean => column.isPrimaryKey || statements.updateColumns.includes(column);
    const stored = async (): Promise<object> =>
      (await this.#reads.storedRow(mapping, mapping.idOf(entity), "update")) ?? (await this.refusal(policy, entity, "update"));
    return (await checkUpdatedValues(policy, entity, writes, stored)) ?? policy.rows("update");
  }

  /**
   * Runs one write with its events in a transaction. A write that runs no application code (`isSingleStatement`)
   * is one statement, atomic by itself: it runs without BEGIN and COMMIT, saving two round trips to a server
   * engine. (Drawing a key from a sequence before an insert is not transactional on any engine anyway.)
   */
  async #write(
    kind: EntityEventKind,
    entity: object,
    statement: (
      connection: Connection,
      statements: EntityStatements,
      tenant: string | undefined,
      policy: CallerPolicy | undefined,
    ) => Promise<void>,
  ): Promise<void> {
    const mapping = writableMapping(entity);
    const statements = sessionStatements(this.session, mapping, this.session.database.dialect);
    // The session's tenant for a scoped entity (and TenantRequiredError without one), before anything runs.
    const tenant = sessionTenant(this.session, mapping);
    // The caller's policy of a governed entity (and PolicyCallerRequiredError without a caller); what the caller
    // writes is checked before the application's events run, so that their own writes are never the caller's.
    const policy = mapping.hasPolicy ? this.#policies.callerPolicy(mapping) : undefined;
    if (policy !== undefined) await this.beforePolicyWrite(kind, policy, entity);
    // A change record is written in the write's transaction: an entity with a change feed always has one.
    if (!this.#transaction.active && mapping.changeFeed === undefined && isSingleStatement(kind, mapping)) {
      await statement(this.#connection.now() ?? (await this.#connection.acquire()), statements, tenant, policy);
      return;
    }
    const session = this.session;
    await session.transaction(async () => {
      await runBeforeEvents(kind, mapping, entity, session);
      await statement(await this.#connection.acquire(), statements, tenant, policy);
      await runAfterEvents(kind, mapping, entity, session);
    });
  }
}

/** A key drawn from `mapping`'s sequence, refused outside the int32 key range. */
function checkedKey(mapping: EntityMapping, id: number): number {
  if (!(id >= 1 && id <= int32Range.max))
    throw new KeyRangeError(SessionMessages.keyOutOfRange(mapping.name, mapping.sequenceName ?? "", id));
  return id;
}
