import {
  ConcurrentUpdateError,
  EntityNotFoundError,
  InvalidInputError,
  PolicyRefusedError,
  RelationConstraintError,
  UniqueViolationError,
  ValidationError,
} from "../../errors.js";
import type { EntityClass } from "../../mapping/column-type.js";
import { type ColumnMapping, EntityMapping } from "../../mapping/entity-mapping.js";
import { Filter } from "../../filter/filter.js";
import { JsonSerializerConfig } from "../../json/json-serializer-config.js";
import { isDeserialized, jsonPropertyName } from "../../json/json-visibility.js";
import { Lazy } from "../../mapping/lazy.js";
import { changeFeedRetryPolicy, type RetryOption } from "../../session/retry-policy.js";
import { HttpBulkItemError, HttpError, HttpNotFoundError } from "../exchange/http-errors.js";
import { type HttpBulkOperation, readBulkBody } from "./bulk-body.js";
import { type HashedBody, type HttpIdempotencyKey, runOnce, runOnceStreamed } from "./idempotency.js";
import { type HttpEntityImportResult, importLines } from "./ndjson-import.js";
import type { NdjsonLine } from "./ndjson-lines.js";
import { CrudMessages } from "./crud-messages.js";
import { isMergeObject, jsonKeyOf, mergePatch } from "./merge-patch.js";
import type { HttpContext } from "./http-context.js";
import { HttpDefaults, HttpStatus } from "../exchange/http-messages.js";
import { entityTagOf, ifMatchVersion, type TagVersion } from "./entity-tag.js";
import type { HttpResponse } from "../exchange/http-response.js";
import { keptByPolicy, refuseUnwritableMembers, requestPolicy } from "./policy-body.js";
import { PerKeyCache } from "../../per-key-cache.js";

/**
 * The columns of an entity that JSON never reads and an update must keep from the stored row (see
 * `#keepHiddenColumns`), worked out once per mapping. The tenant column is never in the UPDATE: it needs no
 * stored value (and no read before the update).
 */
const hiddenColumns = new PerKeyCache<EntityMapping, readonly ColumnMapping[]>((mapping) =>
  mapping.ownColumns.filter(
    (column) => !isDeserialized(column) && column.auditRole === undefined && !column.isPrimaryKey && !column.isVersion && !column.isTenant,
  ),
);

/** A writer event: receives the entity inside the write's transaction; throwing rolls the write back. */
export type HttpEntityWriterEvent<T> = ((entity: T) => void | Promise<void>) | undefined;

/** What the writer's Delete answers. */
export interface HttpEntityDeleted {
  /** The id of the deleted entity. */
  readonly id: number;
  /** Always true. */
  readonly deleted: true;
}

/** What the writer's bulk answers: the inserted and updated entities (as insert and update answer them) and the deleted ids. */
export interface HttpEntityBulkResult {
  /** The inserted entities, in the order of the body's insert list. */
  readonly inserted: unknown[];
  /** The updated entities, reloaded, in the order of the body's update list. */
  readonly updated: unknown[];
  /** The ids of the deleted entities, in the order of the body's delete list. */
  readonly deleted: number[];
}

/** Where a bulk write is: the list and the index of the item at hand, named by a failure. */
interface BulkPosition {
  operation: HttpBulkOperation;
  index: number;
}

/**
 * The standard write logic for one entity class over HTTP. Every write
 * runs in one transaction with its events; an exception in any of them, `onApplyDetails` included,
 * rolls the row back. A write with no events at all is a single statement and needs no transaction.
 *
 * A write that fails with a transient database failure whose retry is safe (see `RetryPolicy`) is run
 * again as a whole, from the JSON body on, events included (so events must be safe to run more than once);
 * a version conflict (409) is never retried. When the retries are exhausted, or the outcome is in doubt (a
 * connection lost after COMMIT was sent), the failure is answered 503.
 */
export class HttpEntityWriter<T extends object> {
  /** The entity class. */
  readonly entityClass: EntityClass<T>;
  /** The request's session. */
  readonly context: HttpContext;
  /** Before the insert. */
  onBeforeInsert: HttpEntityWriterEvent<T> = undefined;
  /** After the insert (and after `onApplyDetails`). */
  onAfterInsert: HttpEntityWriterEvent<T> = undefined;
  /** Before the update. */
  onBeforeUpdate: HttpEntityWriterEvent<T> = undefined;
  /** After the update (and after `onApplyDetails`). */
  onAfterUpdate: HttpEntityWriterEvent<T> = undefined;
  /** Before the delete. */
  onBeforeDelete: HttpEntityWriterEvent<T> = undefined;
  /** After the delete. */
  onAfterDelete: HttpEntityWriterEvent<T> = undefined;
  /** After the insert or update statement, before its after-event: the place to save details. */
  onApplyDetails: HttpEntityWriterEvent<T> = undefined;
  /**
   * How a write is run again after a safe transient failure: `true` for the default policy, or `false` for never.
   * With `true`, an entity with `@ChangeFeed` gets `changeFeedRetryPolicy` instead (more retries), since its
   * writes contend for the change counter at COMMIT (on Galera, a certification conflict between nodes).
   */
  retry: RetryOption = true;
  /** The most items (inserts, updates and deletes together) one bulk body may carry; negative for no limit. */
  maxBulkItems: number = HttpDefaults.maxBulkItems;
  /** How long an idempotency key is remembered after its write (`once`), in seconds (default one day). */
  idempotencyWindowSeconds: number = HttpDefaults.idempotencyWindowSeconds;
  /** The lines of an NDJSON import inserted at a time, one batched insert each (default 1,000). */
  importBatchSize = 1000;
  /** The refused lines an import reports at most; reading stops at this many (default 100). */
  maxImportRefusedLines = 100;
  /** The longest line of an NDJSON import, in bytes (default 1,048,576); a longer one is refused and ends the reading. */
  maxImportLineBytes: number = HttpDefaults.maxRequestContentLength;
  /**
   * The request's `If-Match` header (set by the controller): update, patch and delete then take the version
   * from its entity tag (400 when the body or address names another version), and a stale version or an
   * absent entity answers 412 instead of 409 or 404.
   */
  ifMatch: string | undefined = undefined;
  /** Whether update, patch and delete of a versioned entity need `If-Match` (428 without it). */
  requireIfMatch = false;
  /** The response that gets the `ETag` of the entity an update or patch answers (set by the controller). */
  response: HttpResponse | undefined = undefined;
  readonly #mapping: EntityMapping<T>;

  /** The retry option in force: `retry`, where `true` means the change feed's policy for an entity with one. */
  #retryOption(): RetryOption {
    return this.retry === true && this.#mapping.changeFeed !== undefined ? changeFeedRetryPolicy : this.retry;
  }

  /**
   * @param entityClass the entity. @param context the request's session, whose reads go to the primary from
   * now on (on a database with read replicas: a write's reads, such as a patch's, must see the latest row).
   */
  constructor(entityClass: EntityClass<T>, context: HttpContext) {
    this.entityClass = entityClass;
    this.context = context;
    context.replicaReads = false;
    this.#mapping = EntityMapping.of(entityClass);
  }

  /**
   * Inserts the entity of a JSON body: the id comes from the sequence when the body has none or one
   * that is not positive; a positive id is kept, and answers 409 when a row (even a soft-deleted one) has it,
   * also when clients insert the same new id at once (the database's unique key decides, not a read before).
   * Answers the inserted entity, with details.
   */
  insert(json: unknown, config: JsonSerializerConfig = JsonSerializerConfig.withDetails): Promise<unknown> {
    // No async function: on the embedded engine a write with no writer events runs without a promise of its own,
    // and the server's reaction to the one answered is the only one.
    try {
      const inserted = this.context.retryingNow(() => this.#insert(json), this.#retryOption());
      if (inserted instanceof Promise) return inserted.then((entity) => this.#insertAnswer(entity, config));
      const answer = this.#insertAnswer(inserted, config);
      return answer instanceof Promise ? answer : Promise.resolve(answer);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The answer of an insert: the inserted entity's JSON. */
  #insertAnswer(entity: T, config: JsonSerializerConfig): unknown {
    // Written at once when nothing of it expands: no statement ran, so there is nothing to retry.
    const written = this.context.toJsonNow(entity, config);
    if (!(written instanceof Promise)) return written;
    // Reads after the commit may be run again: they change nothing.
    let first: Promise<unknown> | undefined = written;
    return this.context.retrying(() => {
      const attempt = first ?? this.context.toJson(entity, config);
      first = undefined;
      return attempt;
    }, this.#retryOption());
  }

  /** One attempt of `insert`, from the JSON body on: the entity, or the promise of it. */
  #insert(json: unknown): T | Promise<T> {
    const entity = this.context.fromJson(this.entityClass, json);
    const policy = requestPolicy(this.context, this.#mapping);
    if (policy !== undefined) refuseUnwritableMembers(policy, json, entity, undefined);
    const id = this.context.getId(this.entityClass, json);
    const drawn = id === undefined || id <= 0;
    let writing: Promise<void> | undefined;
    try {
      if (this.onBeforeInsert === undefined && this.onAfterInsert === undefined && this.onApplyDetails === undefined) {
        writing = this.#insertPlain(entity, drawn);
      } else {
        writing = this.context.transaction(async () => {
          if (drawn) await this.context.setSequenceId(entity);
          await this.onBeforeInsert?.(entity);
          await this.context.insert(entity);
          await this.onApplyDetails?.(entity);
          await this.onAfterInsert?.(entity);
        });
      }
    } catch (error) {
      throw this.#insertFailure(error, drawn, id);
    }
    if (writing === undefined) return entity;
    return writing.then(
      () => entity,
      (error: unknown) => {
        throw this.#insertFailure(error, drawn, id);
      },
    );
  }

  /**
   * An insert with no writer event, which needs no transaction of its own (see `#write`): the key drawn when the
   * body has none, then the session's insert, each at once where the engine can. Undefined once written.
   */
  #insertPlain(entity: T, drawn: boolean): Promise<void> | undefined {
    if (!drawn) return this.context.insertNow(entity);
    const key = this.context.setSequenceIdNow(entity);
    if (typeof key !== "number") return key.then(() => this.context.insertNow(entity));
    return this.context.insertNow(entity);
  }

  /** What a failed insert answers: 409 for an id the body chose that a row has, otherwise the failure as it is. */
  #insertFailure(error: unknown, drawn: boolean, id: number | undefined): unknown {
    if (!drawn && id !== undefined && error instanceof UniqueViolationError && error.entity === this.#mapping.name && error.id === id)
      return new HttpError(HttpStatus.conflict, CrudMessages.idTaken(id));
    return error;
  }

  /**
   * Updates the entity of a JSON body (which must carry its id and, when the entity has one, its
   * version), then reloads the row, since the body lacks the change-tracking columns. An absent id
   * answers 404, a stale version 409.
   */
  update(json: unknown, config: JsonSerializerConfig = JsonSerializerConfig.withDetails): Promise<unknown> {
    // No async function: as in `insert`, a write with no writer events costs no promise of its own where the
    // engine runs statements synchronously.
    try {
      const tag = this.#ifMatchTag();
      const body = tag === undefined ? json : this.#withTagVersion(json, tag);
      const id = this.#idAndVersionOf(body);
      const work = () => this.context.retryingNow(() => this.#updateBody(body, id), this.#retryOption());
      const entity = tag === undefined ? work() : this.#underTag(tag, id, work);
      if (entity instanceof Promise) return entity.then((written) => this.#reloaded(written, config));
      const answer = this.#reloaded(entity, config);
      return answer instanceof Promise ? answer : Promise.resolve(answer);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** One attempt of `update`, from the JSON body on: the entity, or the promise of it. */
  #updateBody(body: unknown, id: number): T | Promise<T> {
    const entity = this.context.fromJson(this.entityClass, body);
    const keeping = this.#keepHiddenColumns(entity, id, body);
    if (keeping !== undefined) return keeping.then(() => this.#update(entity, id));
    return this.#update(entity, id);
  }

  /**
   * Updates only the properties a JSON Merge Patch body (RFC 7396) carries; every other column keeps its
   * stored value. The body must carry the id and, when the entity has one, the version it was read with
   * (400 otherwise); `null` sets a property to null, a 422 for a column that cannot hold null; an object
   * value is merged into the stored one. Validation, events, audit columns, 404 and 409 are those of
   * `update`, and so is the answer: the committed row, reloaded.
   */
  async patch(json: unknown, config: JsonSerializerConfig = JsonSerializerConfig.withDetails): Promise<unknown> {
    if (!isMergeObject(json)) throw new InvalidInputError(CrudMessages.patchNotObject);
    const tag = this.#ifMatchTag();
    const body = tag === undefined ? json : (this.#withTagVersion(json, tag) as Record<string, unknown>);
    const id = this.#idAndVersionOf(body);
    this.#refuseNulls(body);
    const work = () => this.context.retrying(() => this.#patch(body, id), this.#retryOption());
    const entity = tag === undefined ? await work() : await this.#underTag(tag, id, work);
    return this.#reloaded(entity, config);
  }

  async #patch(patch: Record<string, unknown>, id: number): Promise<T> {
    const stored = await this.context.tryGet(this.entityClass, id);
    if (stored === null) throw new HttpNotFoundError(id);
    const current = (await this.context.toJson(stored, JsonSerializerConfig.entityOnly)) as Record<string, unknown>;
    const body: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(patch)) {
      body[key] = isMergeObject(value) && isMergeObject(current[key]) ? mergePatch(current[key], value) : value;
    }
    const entity = this.context.fromJson(this.entityClass, body);
    const policy = requestPolicy(this.context, this.#mapping);
    if (policy !== undefined) refuseUnwritableMembers(policy, patch, entity, stored);
    // What the patch leaves out keeps the stored value, hidden columns included, and so do the members the caller
    // may not write (a patch naming one with another value was refused); the change-tracking columns are the
    // update statement's.
    const kept = policy === undefined ? undefined : new Set(keptByPolicy(policy, patch, stored));
    for (const column of this.#mapping.ownColumns) {
      if (column.isPrimaryKey || column.isVersion || column.auditRole !== undefined) continue;
      if (isDeserialized(column) && Object.hasOwn(patch, jsonKeyOf(column)) && kept?.has(column) !== true) continue;
      const value = column.get(stored);
      const target = column.get(entity);
      if (value instanceof Lazy && target instanceof Lazy) target.id = value.id;
      else column.set(entity, value);
    }
    return this.#update(entity, id);
  }

  /** A `null` for a column that cannot hold one is a validation failure (422), as in RFC 7396 it removes the value. */
  #refuseNulls(patch: Record<string, unknown>): void {
    const failures = this.#mapping.ownColumns
      .filter((column) => !column.type.nullable && isDeserialized(column) && patch[jsonKeyOf(column)] === null)
      .map((column) => ({
        property: jsonPropertyName(column),
        column: column.columnName,
        message: CrudMessages.patchNullRequired(jsonPropertyName(column)),
      }));
    if (failures.length > 0) throw new ValidationError(failures);
  }

  /** The id of an update body; 400 when it lacks the id or, for a versioned entity, the version. */
  #idAndVersionOf(json: unknown): number {
    const id = this.context.getId(this.entityClass, json);
    if (id === undefined) throw new InvalidInputError(CrudMessages.updateWithoutId(jsonPropertyName(this.#mapping.primaryKey)));
    const version = this.#mapping.versionColumn;
    if (version !== undefined && typeof (json as Record<string, unknown>)[jsonPropertyName(version)] !== "number") {
      throw new InvalidInputError(CrudMessages.updateWithoutVersion(jsonPropertyName(version)));
    }
    return id;
  }

  /** The entity tag of `If-Match`, `*`, or undefined without one (428 when one is required); 400 when malformed. */
  #ifMatchTag(): TagVersion | "*" | undefined {
    const value = this.ifMatch;
    if (value !== undefined) return ifMatchVersion(value);
    if (this.requireIfMatch && this.#mapping.versionColumn !== undefined)
      throw new HttpError(HttpStatus.preconditionRequired, CrudMessages.ifMatchRequired);
    return undefined;
  }

  /** The body with the tag's version in it; 400 when the body names another version. */
  #withTagVersion(json: unknown, tag: TagVersion | "*"): unknown {
    const version = this.#mapping.versionColumn;
    if (tag === "*" || version === undefined || !isMergeObject(json)) return json;
    const key = jsonPropertyName(version);
    const sent = json[key];
    if (sent !== undefined && sent !== null && sent !== tag.version) throw new InvalidInputError(CrudMessages.ifMatchVersionDiffers(key));
    return { ...json, [key]: tag.version };
  }

  /**
   * Runs a write under `If-Match`: a tag of another id, or of an entity without a version column, never
   * matches, and a stale version or an absent entity answers 412 instead of 409 or 404.
   */
  async #underTag<R>(tag: TagVersion | "*", id: number, work: () => R | Promise<R>): Promise<R> {
    if (tag !== "*" && (tag.id !== id || this.#mapping.versionColumn === undefined))
      throw new HttpError(HttpStatus.preconditionFailed, CrudMessages.preconditionFailed(id));
    try {
      return await work();
    } catch (error) {
      if (error instanceof ConcurrentUpdateError || error instanceof HttpNotFoundError)
        throw new HttpError(HttpStatus.preconditionFailed, CrudMessages.preconditionFailed(id), { cause: error });
      throw error;
    }
  }

  /**
   * The committed row of an update, as JSON (the body lacks the change-tracking columns), with its `ETag` on the
   * response: at once where the engine reads synchronously and nothing of it expands, else the promise of it.
   */
  #reloaded(entity: T, config: JsonSerializerConfig): unknown {
    // Reads after the commit may be run again: they change nothing.
    return this.context.retryingNow(() => this.#reload(entity, config), this.#retryOption());
  }

  /** One attempt of `#reloaded`: the row read again (after a plain update, only what the entity lacks: `refreshWrittenNow`). */
  #reload(entity: T, config: JsonSerializerConfig): unknown {
    const refreshing = this.context.refreshWrittenNow(entity);
    if (refreshing !== undefined) return refreshing.then(() => this.#reloadedJson(entity, config));
    return this.#reloadedJson(entity, config);
  }

  /** The JSON of an entity read again, once written (at once when nothing of it expands), with its `ETag` set. */
  #reloadedJson(entity: T, config: JsonSerializerConfig): unknown {
    const written = this.context.toJsonNow(entity, config);
    if (written instanceof Promise) return written.then((json) => this.#tagged(entity, config, json));
    return this.#tagged(entity, config, written);
  }

  /** `json`, after the entity's tag was set on the response (when there is one and the entity has a version). */
  #tagged(entity: T, config: JsonSerializerConfig, json: unknown): unknown {
    const tag = this.response === undefined ? undefined : entityTagOf(entity, config);
    if (tag !== undefined) this.response?.setHeader("ETag", tag);
    return json;
  }

  /**
   * Updates the entity with its writer events in one transaction, or without any (see `#write`) at once where
   * the engine can: the entity, or the promise of it.
   */
  #update(entity: T, id: number): T | Promise<T> {
    let writing: Promise<void> | undefined;
    try {
      if (this.onBeforeUpdate === undefined && this.onAfterUpdate === undefined && this.onApplyDetails === undefined) {
        writing = this.context.updateNow(entity);
      } else {
        writing = this.context.transaction(async () => {
          await this.onBeforeUpdate?.(entity);
          await this.context.update(entity);
          await this.onApplyDetails?.(entity);
          await this.onAfterUpdate?.(entity);
        });
      }
    } catch (error) {
      return this.#updateFailed(error, id);
    }
    if (writing === undefined) return entity;
    return writing.then(
      () => entity,
      (error: unknown) => this.#updateFailed(error, id),
    );
  }

  /** What a failed update answers: 404 for a stale version of a row that is gone, otherwise the failure as it is. */
  async #updateFailed(error: unknown, id: number): Promise<never> {
    if (error instanceof ConcurrentUpdateError && (await this.context.tryGet(this.entityClass, id)) === null)
      throw new HttpNotFoundError(id);
    throw error;
  }

  /**
   * Runs a write and its events in one transaction. With no writer event set (`onApplyDetails` included)
   * and `needsTransaction` false, the work is the session's write alone, which opens a transaction itself
   * when it needs one (see `Context`), so no BEGIN and COMMIT are sent around a single statement.
   */
  #write(needsTransaction: boolean, work: () => Promise<void>): Promise<void> {
    if (needsTransaction || this.onApplyDetails !== undefined) return this.context.transaction(work);
    return work();
  }

  /**
   * Columns that JSON never reads (`@JsonIgnore`, `@JsonIgnoreDeserialize`) cannot come from the body, so an
   * update takes them from the stored row instead of overwriting them with the defaults of a new entity; so do the
   * members of a governed entity that the caller may not write or read, when the body leaves them out (one it names
   * is refused, 422, unless it is the stored value the caller read). The change-tracking columns are left to the
   * update statement. An absent id answers 404. Undefined, at once, when there is nothing to keep (no read).
   */
  #keepHiddenColumns(entity: T, id: number, body: unknown): Promise<void> | undefined {
    const hidden = hiddenColumns.of(this.#mapping);
    const policy = requestPolicy(this.context, this.#mapping);
    const governed =
      policy !== undefined &&
      (policy.notWritable.size > 0 || policy.conditionalWrites.length > 0 || policy.hidden.size > 0 || policy.conditional.length > 0);
    if (hidden.length === 0 && !governed) return undefined;
    return this.#keepStored(entity, id, body, [...hidden], governed ? policy : undefined);
  }

  /** `#keepHiddenColumns` once it has something to keep: the stored row's values of `hidden` (and the policy's). */
  async #keepStored(
    entity: T,
    id: number,
    body: unknown,
    hidden: ColumnMapping[],
    policy: ReturnType<typeof requestPolicy> | undefined,
  ): Promise<void> {
    const stored = await this.context.tryGet(this.entityClass, id);
    if (stored === null) throw new HttpNotFoundError(id);
    if (policy !== undefined) {
      refuseUnwritableMembers(policy, body, entity, stored);
      for (const column of keptByPolicy(policy, body, stored)) if (!hidden.includes(column)) hidden.push(column);
    }
    for (const column of hidden) {
      const value = column.get(stored);
      const target = column.get(entity);
      if (value instanceof Lazy && target instanceof Lazy) target.id = value.id;
      else column.set(entity, value);
    }
  }

  /**
   * Loads the row, restores the version the client sent and deletes it: 404 for an absent id, 409 for a
   * stale version, also when the row was soft-deleted since the client read it (another client's delete
   * won), so that of many clients deleting one id and version at once exactly one succeeds. Answers `{"id": <id>, "deleted": true}`.
   * With `ifMatch` the version may be left out (it comes from the tag; 400 when both are given and differ),
   * and a stale version or an absent entity answers 412; `If-Match: *` deletes the current row. Without
   * either, 428.
   */
  async delete(id: number, version?: number): Promise<HttpEntityDeleted> {
    const tag = this.#ifMatchTag();
    if (tag === undefined) {
      if (version === undefined) throw new HttpError(HttpStatus.preconditionRequired, CrudMessages.ifMatchRequired);
      await this.context.retrying(() => this.#delete(id, version), this.#retryOption());
      return { id, deleted: true };
    }
    if (tag !== "*" && version !== undefined && version !== tag.version) {
      throw new InvalidInputError(
        CrudMessages.ifMatchVersionDiffers(jsonPropertyName(this.#mapping.versionColumn ?? this.#mapping.primaryKey)),
      );
    }
    const wanted = tag === "*" ? version : tag.version;
    await this.#underTag(tag, id, () => this.context.retrying(() => this.#delete(id, wanted), this.#retryOption()));
    return { id, deleted: true };
  }

  async #delete(id: number, version: number | undefined): Promise<void> {
    const entity = await this.context.tryGet(this.entityClass, id);
    if (entity === null) throw await this.#absent(id, version);
    if (version !== undefined) this.context.setVersionId(entity, version);
    await this.#write(this.onBeforeDelete !== undefined || this.onAfterDelete !== undefined, async () => {
      await this.onBeforeDelete?.(entity);
      await this.context.delete(entity);
      await this.onAfterDelete?.(entity);
    });
  }

  /**
   * What a delete of an id that reads as absent answers: 409 when a soft-deleted row has it at another
   * version than the one the client sent (the client's version is stale), otherwise 404.
   */
  async #absent(id: number, version: number | undefined): Promise<Error> {
    const versionColumn = this.#mapping.versionColumn;
    if (this.#mapping.audit.deletedAt === undefined || versionColumn === undefined) return new HttpNotFoundError(id);
    const deleted = await this.context.tryGet(this.entityClass, id, { includeDeleted: true });
    if (deleted !== null && versionColumn.get(deleted) !== version) return new ConcurrentUpdateError(this.#mapping.name, id);
    return new HttpNotFoundError(id);
  }

  /**
   * Applies a bulk body `{"insert": [...], "update": [...], "delete": [{"id", "versionId"}]}` in one
   * transaction, all or nothing: first the inserts, then the updates, then the deletes, each list with the
   * session's batched statements (`insertAll`, `updateAll`, `deleteAll`) and every writer and entity event of
   * the single writes. Answers `{"inserted": [...], "updated": [...], "deleted": [ids]}`. A body of the wrong
   * shape or with more than `maxBulkItems` items is a 400 before anything is read; a failing item rolls
   * everything back and answers what its single write would (400, 404, 409, 422) with `"operation"` and
   * `"index"` added (`HttpBulkItemError`).
   */
  async bulk(json: unknown, config: JsonSerializerConfig = JsonSerializerConfig.withDetails): Promise<HttpEntityBulkResult> {
    const body = readBulkBody(json, this.#mapping, this.maxBulkItems);
    const at: BulkPosition = { operation: "insert", index: 0 };
    try {
      return await this.context.transaction(
        async () => {
          const inserted = await this.#bulkInsert(body.insert, at, config);
          const updated = await this.#bulkUpdate(body.update, at, config);
          const deleted = await this.#bulkDelete(body.delete, at);
          return { inserted, updated, deleted };
        },
        { retry: this.#retryOption() },
      );
    } catch (error) {
      throw await this.#bulkFailure(error, at, body.update);
    }
  }

  async #bulkInsert(items: readonly unknown[], at: BulkPosition, config: JsonSerializerConfig): Promise<unknown[]> {
    at.operation = "insert";
    const entities: T[] = [];
    const policy = requestPolicy(this.context, this.#mapping);
    for (at.index = 0; at.index < items.length; at.index++) {
      const entity = this.context.fromJson(this.entityClass, items[at.index]);
      if (policy !== undefined) refuseUnwritableMembers(policy, items[at.index], entity, undefined);
      entities.push(entity);
    }
    if (entities.length === 0) return [];
    await this.context.setSequenceIds(entities);
    await this.#bulkWrite(entities, at);
    return this.#bulkAfter(entities, at, this.onAfterInsert, config);
  }

  async #bulkUpdate(items: readonly unknown[], at: BulkPosition, config: JsonSerializerConfig): Promise<unknown[]> {
    at.operation = "update";
    const entities: T[] = [];
    for (at.index = 0; at.index < items.length; at.index++) {
      const json = items[at.index];
      const id = this.#idAndVersionOf(json);
      const entity = this.context.fromJson(this.entityClass, json);
      const keeping = this.#keepHiddenColumns(entity, id, json);
      if (keeping !== undefined) await keeping;
      entities.push(entity);
    }
    if (entities.length === 0) return [];
    await this.#bulkWrite(entities, at);
    await this.#bulkAfter(entities, at, this.onAfterUpdate, undefined);
    // The bodies lack the change-tracking columns: the answer is the rows as written, read in a few statements.
    const written = await this.#loadAll(entities.map((entity) => this.#mapping.idOf(entity)));
    const answers: unknown[] = [];
    for (at.index = 0; at.index < entities.length; at.index++) {
      const row = written.get(this.#mapping.idOf(entities[at.index]));
      if (row === undefined) throw new HttpNotFoundError(this.#mapping.idOf(entities[at.index]));
      answers.push(await this.context.toJson(row, config));
    }
    return answers;
  }

  async #bulkDelete(items: readonly { id: number; version: number }[], at: BulkPosition): Promise<number[]> {
    at.operation = "delete";
    const entities: T[] = [];
    const stored = await this.#loadAll(items.map((item) => item.id));
    for (at.index = 0; at.index < items.length; at.index++) {
      const { id, version } = items[at.index];
      const entity = stored.get(id);
      if (entity === undefined) throw await this.#absent(id, version);
      this.context.setVersionId(entity, version);
      entities.push(entity);
    }
    if (entities.length === 0) return [];
    await this.#bulkWrite(entities, at);
    for (at.index = 0; at.index < entities.length; at.index++) await this.onAfterDelete?.(entities[at.index]);
    return items.map((item) => item.id);
  }

  /**
   * The before-event of each entity, then one batched write of them all, for the list `at` names; `at.index`
   * follows the item at hand so that a failure names it.
   */
  async #bulkWrite(entities: T[], at: BulkPosition): Promise<void> {
    const operation = at.operation;
    const before = operation === "insert" ? this.onBeforeInsert : operation === "update" ? this.onBeforeUpdate : this.onBeforeDelete;
    for (at.index = 0; at.index < entities.length; at.index++) await before?.call(this, entities[at.index]);
    at.index = 0;
    const onItem = (index: number): void => {
      at.index = index;
    };
    if (operation === "insert") await this.context.insertAll(entities, onItem);
    else if (operation === "update") await this.context.updateAll(entities, onItem);
    else await this.context.deleteAll(entities, onItem);
  }

  /** The live rows of these ids, by id, read 500 ids to a statement. */
  async #loadAll(ids: readonly number[]): Promise<Map<number, T>> {
    const found = new Map<number, T>();
    const key = this.#mapping.primaryKey;
    for (let start = 0; start < ids.length; start += 500) {
      const filter = new Filter().add({ kind: "in", column: key, values: ids.slice(start, start + 500) });
      for (const entity of await this.context.select(this.entityClass, filter)) found.set(this.#mapping.idOf(entity), entity);
    }
    return found;
  }

  /** `onApplyDetails` and the after-event of each written entity, then its answer (none when `config` is undefined). */
  async #bulkAfter(
    entities: readonly T[],
    at: { index: number },
    after: HttpEntityWriterEvent<T>,
    config: JsonSerializerConfig | undefined,
  ): Promise<unknown[]> {
    const answers: unknown[] = [];
    for (at.index = 0; at.index < entities.length; at.index++) {
      await this.onApplyDetails?.(entities[at.index]);
      await after?.(entities[at.index]);
      answers.push(config === undefined ? undefined : await this.context.toJson(entities[at.index], config));
    }
    return answers;
  }

  /**
   * What a failed bulk answers: a failure of an item (what a single write answers with a 4xx) names its
   * operation and index; a stale update of an id that reads as absent is a 404, as for a single update; a
   * chosen id that is taken is the single insert's 409. Anything else (a 5xx, a transient failure) stays as it is.
   */
  async #bulkFailure(error: unknown, at: BulkPosition, updates: readonly unknown[]): Promise<unknown> {
    let cause = error;
    if (error instanceof ConcurrentUpdateError && at.operation === "update") {
      const id = this.context.getId(this.entityClass, updates[at.index]);
      if (id !== undefined && (await this.context.tryGet(this.entityClass, id)) === null) cause = new HttpNotFoundError(id);
    } else if (
      error instanceof UniqueViolationError &&
      error.entity === this.#mapping.name &&
      error.id !== undefined &&
      at.operation === "insert"
    ) {
      cause = new HttpError(HttpStatus.conflict, CrudMessages.idTaken(error.id));
    }
    const clientError =
      (cause instanceof HttpError && cause.status < 500) ||
      cause instanceof InvalidInputError ||
      cause instanceof ValidationError ||
      cause instanceof ConcurrentUpdateError ||
      cause instanceof UniqueViolationError ||
      cause instanceof RelationConstraintError ||
      cause instanceof PolicyRefusedError ||
      cause instanceof EntityNotFoundError;
    return clientError ? new HttpBulkItemError(at.operation, at.index, cause) : error;
  }

  /**
   * Inserts one entity per line of an NDJSON body (docs/crud.md "NDJSON import"), in one transaction, all or
   * nothing: the lines are read as they arrive and inserted `importBatchSize` at a time through the bulk path
   * (every writer and entity event, validation, batched INSERTs), each batch let go once written, so that an
   * import of any size holds one batch. A line that is not JSON, does not convert, or whose insert fails
   * writes nothing: the import answers `HttpImportRefusedError` listing the refused lines (up to
   * `maxImportRefusedLines`). Answers `{"imported": <rows>}`. Never retried: the body cannot be read twice.
   */
  import(lines: AsyncIterable<NdjsonLine>): Promise<HttpEntityImportResult> {
    return importLines(lines, {
      context: this.context,
      entityClass: this.entityClass,
      batchSize: Math.max(1, Math.trunc(this.importBatchSize)),
      maxRefusedLines: Math.max(1, Math.trunc(this.maxImportRefusedLines)),
      insertBatch: async (entities) => {
        const at: BulkPosition = { operation: "insert", index: 0 };
        try {
          await this.context.setSequenceIds(entities);
          await this.#bulkWrite(entities, at);
          await this.#bulkAfter(entities, at, this.onAfterInsert, undefined);
        } catch (error) {
          throw await this.#bulkFailure(error, at, []);
        }
      },
    });
  }

  /**
   * `once` for a write whose body is streamed (an NDJSON import): the body's hash, which the key compares, is
   * taken as `body` is read (see `runOnceStreamed`); a retried upload with the same key and bytes writes
   * nothing and answers the first answer.
   */
  onceStreamed<R>(key: HttpIdempotencyKey, body: HashedBody, work: () => Promise<R>): Promise<R> {
    return runOnceStreamed(this.context, key, this.idempotencyWindowSeconds, body, work);
  }

  /**
   * Runs a write once per idempotency key (`Idempotency-Key` of a POST; `HttpIdempotencyKey.of(request)`): the
   * key is claimed, the write runs and its answer is stored, in one transaction. The same key again within
   * `idempotencyWindowSeconds` answers the stored answer without writing again, also while the first is still
   * running (the second waits for it); with another body, 422. A failed write leaves the key free. Needs the
   * table `tenon_idempotency_keys` (`SchemaOptions.idempotencyKeys`).
   */
  once<R>(key: HttpIdempotencyKey, work: () => Promise<R>): Promise<R> {
    return runOnce(this.context, key, this.idempotencyWindowSeconds, this.#retryOption(), work);
  }

  /** A new entity with its id drawn from the sequence, not inserted; entity only. */
  async createNew(config: JsonSerializerConfig = JsonSerializerConfig.entityOnly): Promise<unknown> {
    const entity = await this.context.createEntity(this.entityClass);
    return this.context.toJson(entity, config);
  }
}
