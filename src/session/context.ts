import { EntityNotFoundError, type TransientDatabaseError } from "../errors.js";
import type { Database } from "../engines/database.js";
import { Filter } from "../filter/filter.js";
import type { EntityClass } from "../mapping/column-type.js";
import { EntityMapping } from "../mapping/entity-mapping.js";
import { compileApplicationSql } from "../sql/named-parameters.js";
import { deleteAll, drawKeys, insertAll, updateAll } from "./batch-writes.js";
import { EntityMaterializer } from "./entity-materializer.js";
import { IdentityMap } from "./identity-map.js";
import { type RetryOption, retryPolicyOf, runWithRetry, runWithRetryNow } from "./retry-policy.js";
import type { GetOptions, TransactionOptions } from "./session-options.js";
import { SessionConnection } from "./session-connection.js";
import { SessionReads } from "./session-reads.js";
import { SessionWrites } from "./session-writes.js";
import { TransactionScope } from "./transaction-scope.js";
import { changeRecorder } from "./change-capture.js";
import { type ClosableCursor, type CursorSession, type EntityCursor, type EntityCursorOptions, openEntityCursor } from "./entity-cursor.js";
import { type AggregateCursor, openAggregateCursor } from "./aggregate-cursor.js";
import type { AggregateQuery } from "../filter/aggregate-query.js";
import { type AggregateSpec, aggregateQueryOf } from "../filter/aggregate-spec.js";
import { type AggregateResult, runAggregate } from "./session-aggregates.js";
import { type CountMode, countRows, type RowCount } from "./session-counts.js";
import type { PolicyCaller } from "../policy/caller.js";
import type { PolicyOperation } from "../policy/policy-operation.js";
import type { CallerPolicy } from "../policy/caller-policy.js";
import { SessionPolicies } from "./policy-scope.js";
import { RoutedReads } from "./routed-reads.js";

/**
 * The ORM session: reads and writes mapped entities through one database connection,
 * taken on the first statement and given back on dispose. Keeps an identity map, runs every write with
 * its events and validation in one transaction, and fills the change-tracking columns. A write with no
 * events, no `@Validator` methods and (for a delete) no relations is one statement and is sent without
 * BEGIN and COMMIT, which it does not need.
 *
 * A context serves one logical caller at a time (one HTTP request); do not run two of its operations
 * concurrently.
 */
export class Context implements AsyncDisposable {
  /** The database this session draws its connection from. */
  readonly database: Database;
  /** Answers the current user's name for the `*By` columns. */
  onGetCurrentUser: (() => string) | undefined = undefined;
  /** Answers the caller's tenant for the entities with a `@TenantColumn` (docs/entities.md "Tenant scoping"). */
  onGetCurrentTenant: (() => string | undefined) | undefined = undefined;
  /**
   * Answers the caller for the entities with a `@Policy` (docs/policies.md): its name, areas, tenant and claims
   * (`HttpUser` is one). A session without one reaches no governed entity (`PolicyCallerRequiredError`).
   */
  onGetCurrentCaller: (() => PolicyCaller | undefined) | undefined = undefined;
  /**
   * True: the session reads and writes every tenant's rows, and no `@Policy` applies to it. Set it explicitly, for
   * administration and seeding.
   */
  unscoped = false;
  /** Made on the first statement of an entity with a `@Policy`: a session without one pays nothing for it. */
  #policies: SessionPolicies | undefined;
  /**
   * On a database with read replicas (`Database.readRouting`): whether this session's reads may go to a replica
   * while it has not written and is not in a transaction (undefined: the database's `replicaReads`). Ignored
   * elsewhere. Once the session writes, opens a transaction or runs SQL of its own, every read goes to the primary.
   */
  replicaReads: boolean | undefined = undefined;
  /** The consistency token this session's reads must be at least as new as (`readAfter`). */
  #readAfter: string | undefined = undefined;
  readonly #identityMap = new IdentityMap();
  readonly #entities: EntityMaterializer;
  readonly #connection: SessionConnection;
  /** Made on the first write or transaction (see `#transaction`): a session that only reads pays nothing for it. */
  #transactionScope: TransactionScope | undefined;
  readonly #reads: SessionReads;
  /** Made on the first write (see `#writes`). */
  #sessionWrites: SessionWrites | undefined;
  /** The cursors open now (closed at dispose); undefined until the first opens. */
  #cursors: Set<ClosableCursor> | undefined;
  /** The reads routed to replicas, on a database that has them. */
  readonly #routed: RoutedReads | undefined;

  /** @param database where the session reads and writes; the connection is taken lazily. */
  constructor(database: Database) {
    this.database = database;
    this.#entities = new EntityMaterializer(database.dialect, this.#identityMap, this);
    this.#connection = new SessionConnection(database);
    const routing = database.readRouting;
    this.#routed = routing === undefined ? undefined : new RoutedReads(this.#connection, routing, this);
    this.#reads = new SessionReads(database.dialect, this.#routed ?? this.#connection, this.#identityMap, this.#entities, this, this);
  }

  /** The transaction scope, made on first use: most sessions (every read-only request's) never open one. */
  get #transaction(): TransactionScope {
    return (this.#transactionScope ??= new TransactionScope(this.#connection, () => this.#identityMap.clear(), {
      flush: (connection, kept) => changeRecorder().flush(this, connection, kept),
      committed: () => changeRecorder().committed(this),
    }));
  }

  /** The write side of the session, made on the first write. */
  get #writes(): SessionWrites {
    return (this.#sessionWrites ??= new SessionWrites(
      this,
      this.#connection,
      this.#transaction,
      this.#identityMap,
      this.#entities,
      this,
      this.#reads,
    ));
  }

  /** Whether a transaction is open, without making the scope of a session that never opened one. */
  get #inTransaction(): boolean {
    return this.#transactionScope?.active === true;
  }

  /**
   * The entity's `@Policy` as it applies to this session's caller: undefined for an entity without one and for an
   * unscoped session; throws `PolicyCallerRequiredError` when the session has no caller.
   * @internal The seam through which JSON, the filter body and the change feed ask what the caller may see.
   */
  callerPolicy(mapping: EntityMapping): CallerPolicy | undefined {
    if (!mapping.hasPolicy || this.unscoped) return undefined;
    return (this.#policies ??= new SessionPolicies(this)).of(mapping);
  }

  /** Whether a transaction is open. */
  get inTransaction(): boolean {
    return this.#inTransaction;
  }

  /** The consistency token given to `readAfter`, if any. */
  get readAfter(): string | undefined {
    return this.#readAfter;
  }

  /**
   * Makes this session's reads at least as new as the write a consistency token names (one that
   * `consistencyToken` answered, in this process or another): on a database with read replicas, a read goes to
   * a replica that has replayed past it, or after a bounded wait to the primary. Answers false, and changes
   * nothing, when `token` is not a token of this database's engine; a database without read replicas serves
   * every read from the server that took the writes, so there any token is accepted and nothing changes.
   */
  consistentWith(token: string): boolean {
    const routing = this.database.readRouting;
    if (routing === undefined) return true;
    const parsed = routing.parseToken(token.trim());
    if (parsed === undefined) return false;
    this.#readAfter = parsed;
    return true;
  }

  /**
   * The consistency token of what this session committed so far, for a later session to read at least that new
   * (`consistentWith`); undefined on a database without read replicas, for a session that has not used its own
   * connection, or when the token cannot be read now (the writes are committed all the same).
   */
  consistencyToken(): Promise<string | undefined> {
    const routing = this.database.readRouting;
    if (routing === undefined || !this.#connection.taken || this.#inTransaction) return Promise.resolve(undefined);
    return this.#connection.acquire().then(
      (connection) => routing.tokenAfterWrite(connection),
      () => undefined,
    );
  }

  /** The entity of `entityClass` with this primary key; throws `EntityNotFoundError` when there is none. */
  async get<T extends object>(entityClass: EntityClass<T>, id: number, options?: GetOptions): Promise<T> {
    const entity = await this.tryGet(entityClass, id, options);
    if (entity === null) throw new EntityNotFoundError(entityClass.name, id);
    return entity;
  }

  /** The entity of `entityClass` with this primary key, or null. */
  tryGet<T extends object>(entityClass: EntityClass<T>, id: number, options?: GetOptions): Promise<T | null> {
    try {
      const found = this.#reads.tryGetNow(entityClass, id, options?.includeDeleted === true);
      return found instanceof Promise ? found : Promise.resolve(found);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * `tryGet` without a promise when none is needed: the identity map's instance, or the row read at once
   * from an engine that runs statements synchronously; otherwise the promise `tryGet` answers. Throws what
   * `tryGet` would reject with. A context whose `tryGet` is not this class's own (a subclass overrides it)
   * answers what that `tryGet` answers, so a fast caller still reads through the override.
   * @internal The seam of hot paths such as the CRUD reader.
   */
  tryGetNow<T extends object>(entityClass: EntityClass<T>, id: number, options?: GetOptions): T | null | Promise<T | null> {
    if (this.tryGet !== ownTryGet) return this.tryGet(entityClass, id, options);
    return this.#reads.tryGetNow(entityClass, id, options?.includeDeleted === true);
  }

  /** The entities a filter selects, in its order and page. */
  select<T extends object>(entityClass: EntityClass<T>, filter: Filter): Promise<T[]> {
    return this.#reads.select(entityClass, filter);
  }

  /**
   * `select` for one path of reading: the rows a governed entity's policy grants the caller for `operation` (an
   * aggregate, an export, the change feed), or with `null` every row the session's tenant reaches, under no policy
   * (a read of the session's own, such as the change feed's record of a write).
   * @internal The seam of the read paths that are not `read`.
   */
  selectFor<T extends object>(entityClass: EntityClass<T>, filter: Filter, operation: PolicyOperation | null): Promise<T[]> {
    return this.#reads.select(entityClass, filter, operation);
  }

  /** Every entity of the class (the fixed WHERE clause and the soft-delete guard still apply). */
  selectAll<T extends object>(entityClass: EntityClass<T>): Promise<T[]> {
    return this.select(entityClass, new Filter());
  }

  /** The number of rows a filter matches (its page is ignored). */
  selectCount<T extends object>(entityClass: EntityClass<T>, filter?: Filter): Promise<number> {
    return this.#reads.count(entityClass, filter);
  }

  /**
   * The number of rows a filter matches and the entities of its page, read in one snapshot (what the CRUD
   * reader's select answers), so that under concurrent writes the count is never smaller than the page: on
   * the embedded engine both queries in one read transaction, elsewhere one statement with
   * `COUNT(*) OVER ()`. A page past the end carries no count: then the count is read by a second statement.
   */
  selectPage<T extends object>(entityClass: EntityClass<T>, filter: Filter): Promise<{ count: number; entities: T[] }> {
    return this.#reads.page(entityClass, filter);
  }

  /**
   * Opens a cursor on the entities a filter selects (its tenant, soft-delete guard, order and page as in
   * `select`), read `batchSize` at a time, so that a result of any size takes the memory of one batch: on a
   * connection of its own, in a read-only snapshot (docs/crud.md "Streamed answers"). The entities are not kept
   * in the identity map. Close it when done; the session closes cursors still open when it is disposed.
   */
  async openCursor<T extends object>(entityClass: EntityClass<T>, filter: Filter, options?: EntityCursorOptions): Promise<EntityCursor<T>> {
    const cursor = await openEntityCursor(this.#cursorSession(), EntityMapping.of(entityClass), filter, options);
    this.#cursors?.add(cursor);
    return cursor;
  }

  /**
   * Opens a cursor on the groups of an aggregate (a question resolved to columns, as `selectAggregate` takes it),
   * read `batchSize` at a time like `openCursor` reads entities: its `limit` is the caller's own (absent: every
   * group), and its `groupCount` says, once the first batch was read, how many groups the question has.
   */
  async openAggregateCursor<T extends object>(
    entityClass: EntityClass<T>,
    query: AggregateQuery,
    options?: EntityCursorOptions,
  ): Promise<AggregateCursor> {
    const cursor = await openAggregateCursor(this.#cursorSession(), entityClass, query, options);
    this.#cursors?.add(cursor);
    return cursor;
  }

  /** What a cursor needs of the session; the cursors it opens are kept to be closed at dispose. */
  #cursorSession(): CursorSession {
    const cursors = (this.#cursors ??= new Set());
    return { database: this.database, tenants: this, entities: this.#entities, onClosed: (closed) => cursors.delete(closed) };
  }

  /**
   * Forgets every entity the session holds (its identity map): later reads load fresh instances. For a long
   * session that reads or writes many rows (an export, an import), so that memory holds only what the caller
   * still refers to.
   */
  clear(): void {
    this.#identityMap.clear();
  }

  /**
   * The number of rows a filter matches, counted as `mode` says: `exact`; `estimated` from the engine's
   * statistics (PostgreSQL and MariaDB ask the planner, without reading the rows; SQLite has none and counts
   * exactly, answering kind `exact`); `{ atMost: n }` exactly up to `n` rows, then `n` of kind `atLeast`.
   */
  countRows<T extends object>(entityClass: EntityClass<T>, filter: Filter | undefined, mode: CountMode): Promise<RowCount> {
    return countRows(this.database.dialect, this.#connection, this, entityClass, filter, mode);
  }

  /**
   * Asks a question of the rows of `entityClass` (docs/crud.md "Aggregates"): the rows of `spec.where` (with the
   * soft-delete and tenant rules of a select), grouped, measured, filtered by `having`, ordered and paged. Answers
   * the page of groups, their number, and where the next page starts. A property, function or name that does not
   * fit throws `TenonError`.
   */
  aggregate<T extends object>(entityClass: EntityClass<T>, spec: AggregateSpec<T>): Promise<AggregateResult> {
    try {
      return this.selectAggregate(entityClass, aggregateQueryOf(entityClass, spec));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** `aggregate` of a question already resolved to columns (what the HTTP aggregate route builds from its body). */
  selectAggregate<T extends object>(entityClass: EntityClass<T>, query: AggregateQuery): Promise<AggregateResult> {
    return runAggregate(this.database.dialect, this.#connection, this, entityClass, query);
  }

  /** A new, not yet inserted entity with its primary key drawn from the sequence and its references attached. */
  async createEntity<T extends object>(entityClass: EntityClass<T>): Promise<T> {
    const mapping = EntityMapping.of(entityClass);
    const entity = mapping.create();
    this.#entities.attach(mapping, entity);
    await this.setSequenceId(entity);
    return entity;
  }

  /**
   * Draws the entity's primary key from its sequence and sets it. An insert of the entity then knows the key
   * was drawn, not chosen: if a row has taken it meanwhile (an id a client chose), it draws the next one.
   */
  async setSequenceId<T extends object>(entity: T): Promise<number> {
    const mapping = EntityMapping.of(entity.constructor as EntityClass<T>);
    const id = await this.nextId(mapping.entityClass);
    mapping.primaryKey.set(entity, id);
    this.#writes.markDrawn(entity, id);
    return id;
  }

  /**
   * `setSequenceId` without a promise when none is needed: the key drawn at once from an engine that draws keys
   * synchronously, otherwise the promise `setSequenceId` answers. Throws what `setSequenceId` would reject with. A
   * context whose `setSequenceId` or `nextId` is not this class's own draws through it.
   * @internal The seam of hot paths such as the CRUD writer.
   */
  setSequenceIdNow<T extends object>(entity: T): number | Promise<number> {
    if (this.setSequenceId !== ownSetSequenceId) return this.setSequenceId(entity);
    const mapping = EntityMapping.of(entity.constructor as EntityClass<T>);
    const id = this.nextIdNow(mapping.entityClass);
    if (typeof id !== "number") return id.then((drawn) => this.#drawn(mapping, entity, drawn));
    return this.#drawn(mapping, entity, id);
  }

  /** The entity gets the key drawn for it, and the insert knows it was drawn. */
  #drawn<T extends object>(mapping: EntityMapping<T>, entity: T, id: number): number {
    mapping.primaryKey.set(entity, id);
    this.#writes.markDrawn(entity, id);
    return id;
  }

  /**
   * `nextId` without a promise when the engine draws keys synchronously; otherwise `nextId`'s promise (also for
   * a context whose `nextId` is not this class's own).
   * @internal The seam of hot paths such as the CRUD writer.
   */
  nextIdNow<T extends object>(entityClass: EntityClass<T>): number | Promise<number> {
    if (this.nextId !== ownNextId) return this.nextId(entityClass);
    return this.#writes.nextIdNow(entityClass);
  }

  /** `setSequenceId` for the entities (of one class) without a positive key, drawn together where the engine can. */
  setSequenceIds<T extends object>(entities: readonly T[]): Promise<void> {
    return drawKeys(this.#writes, entities);
  }

  /** Draws the next primary key of an entity class from its sequence (on SQLite, a key table in the database file). */
  nextId<T extends object>(entityClass: EntityClass<T>): Promise<number> {
    return this.#writes.nextId(entityClass);
  }

  /**
   * Inserts the entity: before-insert events, Created pair, validation, INSERT (version 0), after-insert
   * events, in one transaction. A primary key that is not a positive number is drawn from the sequence first.
   * A drawn key that a row already has (an id a client chose ahead of the sequence) is replaced by the next
   * one, a bounded number of times; a key given by the caller that a row already has raises
   * `UniqueViolationError` with `onPrimaryKey` true (never a row of someone else changed).
   */
  insert<T extends object>(entity: T): Promise<void> {
    return promised(() => this.#writes.insertNow(entity));
  }

  /**
   * `insert` without a promise when none is needed (a write with no events, validators, change feed or caller's
   * scope, on an engine that runs statements synchronously): undefined once the row is written; otherwise the
   * promise `insert` answers. Throws what `insert` would reject with. A context whose `insert` is not this class's
   * own inserts through it.
   * @internal The seam of hot paths such as the CRUD writer.
   */
  insertNow<T extends object>(entity: T): Promise<void> | undefined {
    if (this.insert !== ownInsert) return this.insert(entity);
    return this.#writes.insertNow(entity);
  }

  /**
   * Inserts several entities of one class as `insert` does each, in one transaction, one multi-row INSERT per up
   * to 1000 rows, the keys drawn together: a large order's lines cost a few round trips, not two per line. Every
   * before-event runs before the first row is written, every after-event after the last. `onItem` hears the
   * position of the entity being worked on, so a caller can say which one failed.
   */
  insertAll<T extends object>(entities: readonly T[], onItem?: (index: number) => void): Promise<void> {
    if (entities.length === 0) return Promise.resolve();
    return this.transaction(() => insertAll(this.#writes, entities, onItem));
  }

  /**
   * Updates several entities of one class as `update` does each, in one transaction, one multi-row UPDATE per up
   * to 200 rows; a row gone or stale raises `ConcurrentUpdateError` naming it. `onItem` as in `insertAll`.
   */
  updateAll<T extends object>(entities: readonly T[], onItem?: (index: number) => void): Promise<void> {
    if (entities.length === 0) return Promise.resolve();
    return this.transaction(() => updateAll(this.#writes, entities, onItem));
  }

  /**
   * Deletes several entities of one class as `delete` does each, in one transaction: without relations, one
   * statement per up to 1000 rows by key and version (a row gone or stale raises `ConcurrentUpdateError`);
   * with relations, each in turn. `onItem` as in `insertAll`.
   */
  deleteAll<T extends object>(entities: readonly T[], onItem?: (index: number) => void): Promise<void> {
    if (entities.length === 0) return Promise.resolve();
    return this.transaction(() => deleteAll(this.#writes, entities, onItem));
  }

  /**
   * Updates the entity: before-update events, Updated pair, validation, UPDATE ... version = version + 1
   * WHERE id and version match (and the row is not soft-deleted), after-update events, in one transaction.
   * No row changed raises `ConcurrentUpdateError`.
   */
  update<T extends object>(entity: T): Promise<void> {
    return promised(() => this.#writes.updateNow(entity));
  }

  /**
   * `update` without a promise when none is needed, as `insertNow`. A context whose `update` is not this class's
   * own updates through it.
   * @internal The seam of hot paths such as the CRUD writer.
   */
  updateNow<T extends object>(entity: T): Promise<void> | undefined {
    if (this.update !== ownUpdate) return this.update(entity);
    return this.#writes.updateNow(entity);
  }

  /**
   * Deletes the entity: before-delete events, relations (cascade deletes children, otherwise children
   * block the delete), then a soft delete (an UPDATE of the Deleted pair) when the entity has `@DeletedAt`
   * or a DELETE, then after-delete events, in one transaction. A soft delete cascades softly to children
   * that have `@DeletedAt` too (known through a `@DetailColumn` on the relation's table and key), with the
   * parent's time and user; other children of a cascading relation are deleted for real.
   */
  delete<T extends object>(entity: T): Promise<void> {
    return this.#writes.delete(entity);
  }

  /**
   * Brings a soft-deleted entity back: clears the Deleted pair and writes the Updated pair (it is an update), and
   * brings back the children that a soft cascade deleted with it (those deleted at its deletion time).
   */
  undelete<T extends object>(entity: T): Promise<void> {
    return this.#writes.undelete(entity);
  }

  /** Reads the entity's row again into the same object; its detail lists are cleared and reload on next access. */
  refresh<T extends object>(entity: T): Promise<void> {
    return promised(() => this.#reads.refreshNow(entity));
  }

  /**
   * `refresh` without a promise when the engine reads synchronously: undefined once the entity is read again;
   * otherwise the promise `refresh` answers. Throws what `refresh` would reject with. A context whose `refresh` is
   * not this class's own reads through it.
   * @internal The seam of hot paths such as the CRUD writer.
   */
  refreshNow<T extends object>(entity: T): Promise<void> | undefined {
    if (this.refresh !== ownRefresh) return this.refresh(entity);
    return this.#reads.refreshNow(entity);
  }

  /**
   * `refreshNow` of an entity that this session's `update` just wrote, with no code between them that could change
   * it: after a plain update (no events or validators ran), only the columns the entity does not hold already are
   * read. A context whose `refresh` or `update` is not this class's own refreshes in full.
   * @internal The seam of the CRUD writer.
   */
  refreshWrittenNow<T extends object>(entity: T): Promise<void> | undefined {
    if (this.refresh !== ownRefresh || this.update !== ownUpdate) return this.refreshNow(entity);
    return this.#reads.refreshWrittenNow(entity);
  }

  /**
   * Runs `work` in one transaction: commit when it resolves, roll back when it throws. A transaction
   * inside a transaction joins the outer one. With `retry`, a transient failure whose retry is safe (a
   * serialization or certification failure, a deadlock, a connection lost before COMMIT was sent) rolls
   * back and runs `work` again, on a new connection when the old one was lost; `work` must then be safe to
   * run more than once (no effects outside the database, or effects that may repeat).
   */
  transaction<R>(work: () => Promise<R>, options?: TransactionOptions): Promise<R> {
    const policy = this.#inTransaction ? undefined : retryPolicyOf(options?.retry);
    if (policy === undefined) return this.#transaction.run(work);
    return runWithRetry(policy, () => this.#transaction.run(work), this.#recover);
  }

  /**
   * Runs `work`, and runs it again after a transient failure whose retry is safe, as `transaction` with
   * `retry` does, but without a transaction of its own (for work that opens its transactions itself, or is
   * a single statement). Inside a transaction `work` runs once: the outermost unit is what can be retried.
   */
  retrying<R>(work: () => Promise<R>, retry: RetryOption = true): Promise<R> {
    const policy = this.#inTransaction ? undefined : retryPolicyOf(retry);
    if (policy === undefined) return work();
    return runWithRetry(policy, work, this.#recover);
  }

  /**
   * `retrying` for work that may finish at once: its value when the first attempt answers one (no promise),
   * otherwise a promise, as `retrying` answers; the retries always come after a wait. A context whose
   * `retrying` is not this class's own runs the work through it.
   * @internal The seam of hot paths such as the CRUD writer.
   */
  retryingNow<R>(work: () => R | Promise<R>, retry: RetryOption = true): R | Promise<R> {
    if (this.retrying !== ownRetrying) return this.retrying(() => promised(work), retry);
    const policy = this.#inTransaction ? undefined : retryPolicyOf(retry);
    if (policy === undefined) return work();
    return runWithRetryNow(policy, work, this.#recover);
  }

  /** Before a retry: nothing read in the failed attempt is trusted, and a lost connection is given up for a new one. */
  readonly #recover = (error: TransientDatabaseError): void => {
    this.#identityMap.clear();
    if (error.connectionLost) {
      this.#connection.forget();
      this.#routed?.forget();
    }
  };

  /**
   * Asks the server to stop the statement this session is running, if any: its caller has gone (an HTTP
   * client that disconnected; the server calls this through the request context's `abort()`). The statement
   * fails with a timeout-kind `TransientDatabaseError`, and what the session was doing fails with it.
   * Resolves when the request was sent; never rejects. Nothing happens on the embedded engine, whose
   * statements run synchronously and cannot be running while the caller looks.
   */
  cancel(): Promise<void> {
    return this.#connection.cancel();
  }

  /**
   * Binds an entity built outside the session (with `new`, or from JSON) to it: its `Lazy` references
   * load through this session and its detail lists load on first access. Insert does this too.
   */
  attach<T extends object>(entity: T): T {
    this.#entities.attach(EntityMapping.of(entity.constructor as EntityClass<T>), entity);
    return entity;
  }

  /** Runs SQL of the application with `:name` parameters and answers the rows as arrays. */
  async query(sql: string, parameters: Readonly<Record<string, unknown>> = {}): Promise<unknown[][]> {
    const statement = compileApplicationSql(sql, parameters, this.database.dialect);
    return (await this.#connection.acquire()).query(statement.sql, statement.parameters);
  }

  /** Runs an SQL statement of the application with `:name` parameters and answers the rows it changed. */
  async execute(sql: string, parameters: Readonly<Record<string, unknown>> = {}): Promise<number> {
    const statement = compileApplicationSql(sql, parameters, this.database.dialect);
    return (await this.#connection.acquire()).execute(statement.sql, statement.parameters);
  }

  /** Gives the connection back (rolling back an unfinished transaction). Safe to call twice. */
  dispose(): Promise<void> {
    const cursors = this.#cursors;
    const routed = this.#routed;
    if ((cursors === undefined || cursors.size === 0) && routed === undefined) return this.#connection.dispose();
    const closing = cursors === undefined ? [] : [...cursors].map((cursor) => cursor.close());
    if (routed !== undefined) closing.push(routed.dispose());
    return Promise.all(closing).then(() => this.#connection.dispose());
  }

  /** Same as `dispose()`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }
}

/** `Context`'s own `tryGet`: a context with another one is read through it (see `tryGetNow`). */
const ownTryGet = Context.prototype.tryGet;
/** `Context`'s own methods that the `*Now` seams stand for: a context that overrides one is served through its override. */
const ownSetSequenceId = Context.prototype.setSequenceId;
const ownNextId = Context.prototype.nextId;
const ownInsert = Context.prototype.insert;
const ownUpdate = Context.prototype.update;
const ownRefresh = Context.prototype.refresh;
const ownRetrying = Context.prototype.retrying;

/** What `work` answers, as a promise: its value resolved, or its throw as a rejection. */
function promised<R>(work: () => R | Promise<R>): Promise<R> {
  try {
    const result = work();
    return result instanceof Promise ? result : Promise.resolve(result);
  } catch (error) {
    return Promise.reject(error);
  }
}
