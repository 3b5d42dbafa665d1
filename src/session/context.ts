import { ConcurrentUpdateError, EntityNotFoundError, RelationConstraintError, TenonError } from "../errors.js";
import type { Connection, Database } from "../engines/database.js";
import { hasEvents, runAfterEvents, runBeforeEvents, type EntityEventKind } from "../events/entity-events.js";
import { Filter } from "../filter/filter.js";
import type { EntityClass } from "../mapping/column-type.js";
import { type ColumnMapping, EntityMapping } from "../mapping/entity-mapping.js";
import { Lazy } from "../mapping/lazy.js";
import { compileNamedParameters } from "../sql/named-parameters.js";
import { statementsOf, type CompiledStatement } from "../sql/entity-statements.js";
import { hasValidatorMethods, validateEntity } from "../validation/validate-entity.js";
import { EntityMaterializer } from "./entity-materializer.js";
import { IdentityMap } from "./identity-map.js";

/** The promise of a disposal with nothing left to wait for. */
const settled: Promise<void> = Promise.resolve();

/**
 * True when `disposal` is what `dispose()` answers once nothing is left to wait for (the connection was given
 * back at once, or none was taken): the request pipeline then finishes the request without a promise reaction.
 * @internal
 */
export function isSettledDisposal(disposal: unknown): boolean {
  return disposal === settled;
}

/** Options of a read by primary key. */
export interface GetOptions {
  /** Read a soft-deleted row too (needed to undelete it). */
  readonly includeDeleted?: boolean;
}

/**
 * The ORM session (SPEC.md TTContext): reads and writes mapped entities through one database connection,
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
  /** Answers the current user's name for the `*By` columns (SPEC.md TTContext.OnGetCurrentUser). */
  onGetCurrentUser: (() => string) | undefined = undefined;
  readonly #identityMap = new IdentityMap();
  readonly #entities: EntityMaterializer;
  #connection: Promise<Connection> | undefined;
  /** The connection once it is open, so that reads skip a wait on the promise. */
  #connected: Connection | undefined;
  #transactionDepth = 0;
  #disposed = false;

  /** @param database where the session reads and writes; the connection is taken lazily. */
  constructor(database: Database) {
    this.database = database;
    this.#entities = new EntityMaterializer(database.dialect, this.#identityMap, this);
  }

  /** Whether a transaction is open. */
  get inTransaction(): boolean {
    return this.#transactionDepth > 0;
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
      const found = this.tryGetNow(entityClass, id, options);
      return found instanceof Promise ? found : Promise.resolve(found);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * `tryGet` without a promise when none is needed: the identity map's instance, or the row read at once
   * from an engine that runs statements synchronously; otherwise the promise `tryGet` answers. Throws what
   * `tryGet` would reject with. @internal For hot paths such as the CRUD reader.
   */
  tryGetNow<T extends object>(entityClass: EntityClass<T>, id: number, options?: GetOptions): T | null | Promise<T | null> {
    const mapping = EntityMapping.of(entityClass);
    const includeDeleted = options?.includeDeleted === true;
    if (!mapping.isJoinEntity && !includeDeleted) {
      const known = this.#identityMap.get(mapping.entityClass, id);
      if (known !== undefined) return known as T;
    }
    const statements = statementsOf(mapping, this.database.dialect);
    const statement = statements.selectById(id, includeDeleted);
    const rows = this.#connectNow()?.queryNow?.(statement.sql, statement.parameters, statements.exactIntegers);
    if (rows !== undefined) return this.#first(mapping, rows);
    return this.#query(statement, statements.exactIntegers).then((read) => this.#first(mapping, read));
  }

  /** The entity of the first row, or null for no row. */
  #first<T extends object>(mapping: EntityMapping<T>, rows: unknown[][]): T | null {
    return rows.length === 0 ? null : this.#entities.materialize(mapping, rows[0]);
  }

  /** The entities a filter selects, in its order and page. */
  async select<T extends object>(entityClass: EntityClass<T>, filter: Filter): Promise<T[]> {
    const mapping = EntityMapping.of(entityClass);
    const statements = statementsOf(mapping, this.database.dialect);
    const rows = await this.#query(statements.select(filter), statements.exactIntegers);
    return rows.map((row) => this.#entities.materialize(mapping, row));
  }

  /** Every entity of the class (the fixed WHERE clause and the soft-delete guard still apply). */
  selectAll<T extends object>(entityClass: EntityClass<T>): Promise<T[]> {
    return this.select(entityClass, new Filter());
  }

  /** The number of rows a filter matches (its page is ignored). */
  async selectCount<T extends object>(entityClass: EntityClass<T>, filter?: Filter): Promise<number> {
    const mapping = EntityMapping.of(entityClass);
    const rows = await this.#query(statementsOf(mapping, this.database.dialect).count(filter), false);
    return Number(rows[0][0]);
  }

  /** A new, not yet inserted entity with its primary key drawn from the sequence and its references attached. */
  async createEntity<T extends object>(entityClass: EntityClass<T>): Promise<T> {
    const mapping = EntityMapping.of(entityClass);
    const entity = mapping.create();
    this.#entities.attach(mapping, entity);
    mapping.primaryKey.set(entity, await this.nextId(entityClass));
    return entity;
  }

  /** Draws the next primary key of an entity class from its sequence (SPEC.md 2.8 rule 1). */
  async nextId<T extends object>(entityClass: EntityClass<T>): Promise<number> {
    const mapping = EntityMapping.of(entityClass);
    if (mapping.sequenceName === undefined) throw new TenonError(`${mapping.name}: drawing a key needs a @Sequence.`);
    const connection = await this.#acquire();
    return connection.nextId(mapping.sequenceName, mapping.tableName, mapping.primaryKey.columnName);
  }

  /**
   * Inserts the entity: before-insert events, Created pair, validation, INSERT (version 0), after-insert
   * events, in one transaction. A primary key that is not a positive number is drawn from the sequence first.
   */
  async insert<T extends object>(entity: T): Promise<void> {
    const mapping = this.#writable(entity);
    const statements = statementsOf(mapping, this.database.dialect);
    await this.#write("insert", mapping, entity, async (connection) => {
      const id = mapping.primaryKey.get(entity);
      if (typeof id !== "number" || !(id > 0)) mapping.primaryKey.set(entity, await this.nextId(mapping.entityClass));
      mapping.versionColumn?.set(entity, 0);
      this.#stamp(mapping.audit.createdAt, mapping.audit.createdBy, entity);
      const validating = validateEntity(mapping, entity, this);
      if (validating !== undefined) await validating;
      await connection.execute(statements.insertSql, this.#values(statements.insertColumns, entity));
      this.#entities.attach(mapping, entity);
      this.#identityMap.set(mapping.entityClass, mapping.idOf(entity), entity);
    });
  }

  /**
   * Updates the entity: before-update events, Updated pair, validation, UPDATE ... version = version + 1
   * WHERE id and version match (and the row is not soft-deleted), after-update events, in one transaction.
   * No row changed raises `ConcurrentUpdateError`.
   */
  async update<T extends object>(entity: T): Promise<void> {
    const mapping = this.#writable(entity);
    const statements = statementsOf(mapping, this.database.dialect);
    await this.#write("update", mapping, entity, async (connection) => {
      this.#stamp(mapping.audit.updatedAt, mapping.audit.updatedBy, entity);
      const validating = validateEntity(mapping, entity, this);
      if (validating !== undefined) await validating;
      const parameters = [...this.#values(statements.updateColumns, entity), ...this.#keyValues(mapping, entity)];
      await this.#expectOneRow(connection, statements.updateSql, parameters, mapping, entity);
    });
  }

  /**
   * Deletes the entity: before-delete events, relations (cascade deletes children, otherwise children
   * block the delete), then a soft delete (an UPDATE of the Deleted pair) when the entity has `@DeletedAt`
   * or a DELETE, then after-delete events, in one transaction.
   */
  async delete<T extends object>(entity: T): Promise<void> {
    const mapping = this.#writable(entity);
    const statements = statementsOf(mapping, this.database.dialect);
    await this.#write("delete", mapping, entity, async (connection) => {
      await this.#applyRelations(connection, mapping, entity);
      if (statements.softDeleteSql !== undefined) {
        this.#stamp(mapping.audit.deletedAt, mapping.audit.deletedBy, entity);
        const parameters = [...this.#values(statements.softDeleteColumns, entity), ...this.#keyValues(mapping, entity)];
        await this.#expectOneRow(connection, statements.softDeleteSql, parameters, mapping, entity);
      } else {
        await this.#expectOneRow(connection, statements.deleteSql, this.#keyValues(mapping, entity), mapping, entity);
      }
      this.#identityMap.delete(mapping.entityClass, mapping.idOf(entity));
    });
  }

  /** Brings a soft-deleted entity back: clears the Deleted pair and writes the Updated pair (SPEC.md 3). */
  async undelete<T extends object>(entity: T): Promise<void> {
    const mapping = this.#writable(entity);
    const statements = statementsOf(mapping, this.database.dialect);
    if (statements.undeleteSql === undefined) throw new TenonError(`${mapping.name}: undelete needs a @DeletedAt column.`);
    await this.transaction(async () => {
      const connection = await this.#acquire();
      this.#stamp(mapping.audit.updatedAt, mapping.audit.updatedBy, entity);
      const parameters = [...this.#values(statements.undeleteColumns, entity), ...this.#keyValues(mapping, entity)];
      await this.#expectOneRow(connection, statements.undeleteSql as string, parameters, mapping, entity);
      mapping.audit.deletedAt?.set(entity, null);
      mapping.audit.deletedBy?.set(entity, mapping.audit.deletedBy.type.nullable ? null : "");
      this.#identityMap.set(mapping.entityClass, mapping.idOf(entity), entity);
    });
  }

  /** Reads the entity's row again into the same object; its detail lists are cleared and reload on next access. */
  async refresh<T extends object>(entity: T): Promise<void> {
    const mapping = EntityMapping.of(entity.constructor as EntityClass<T>);
    const statements = statementsOf(mapping, this.database.dialect);
    const rows = await this.#query(statements.selectById(mapping.idOf(entity), true), statements.exactIntegers);
    if (rows.length === 0) throw new EntityNotFoundError(mapping.name, mapping.idOf(entity));
    this.#entities.fill(mapping, entity, rows[0]);
  }

  /**
   * Runs `work` in one transaction: commit when it resolves, roll back when it throws. A transaction
   * inside a transaction joins the outer one.
   */
  async transaction<R>(work: () => Promise<R>): Promise<R> {
    if (this.#transactionDepth > 0) {
      this.#transactionDepth++;
      try {
        return await work();
      } finally {
        this.#transactionDepth--;
      }
    }
    const connection = await this.#acquire();
    await connection.begin();
    this.#transactionDepth = 1;
    try {
      const result = await work();
      await connection.commit();
      return result;
    } catch (error) {
      this.#identityMap.clear();
      try {
        await connection.rollback();
      } catch (rollbackError) {
        throw new TenonError(`The transaction failed and so did its rollback: ${(rollbackError as Error).message}`, { cause: error });
      }
      throw error;
    } finally {
      this.#transactionDepth = 0;
    }
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
    const positional: unknown[] = [];
    const text = this.#compile(sql, parameters, positional);
    return (await this.#acquire()).query(text, positional);
  }

  /** Runs an SQL statement of the application with `:name` parameters and answers the rows it changed. */
  async execute(sql: string, parameters: Readonly<Record<string, unknown>> = {}): Promise<number> {
    const positional: unknown[] = [];
    const text = this.#compile(sql, parameters, positional);
    return (await this.#acquire()).execute(text, positional);
  }

  /** The application's SQL in the engine's placeholder form, its values converted and appended to `positional`. */
  #compile(sql: string, parameters: Readonly<Record<string, unknown>>, positional: unknown[]): string {
    const dialect = this.database.dialect;
    const values = new Map(Object.entries(parameters).map(([name, value]) => [name, dialect.toParameter(value)]));
    return compileNamedParameters(sql, values, dialect, positional);
  }

  /** Gives the connection back (rolling back an unfinished transaction). Safe to call twice. */
  dispose(): Promise<void> {
    if (this.#disposed) return settled;
    this.#disposed = true;
    const pending = this.#connection;
    const connected = this.#connected;
    this.#connection = undefined;
    this.#connected = undefined;
    if (pending === undefined) return settled;
    // An open connection goes back at once; one still opening goes back when it opens.
    if (connected !== undefined) {
      releaseQuietly(connected);
      return settled;
    }
    return pending.then(releaseQuietly, () => undefined); // a connection that never opened has nothing to give back
  }

  /** Same as `dispose()`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }

  #acquire(): Promise<Connection> {
    if (this.#disposed) return Promise.reject(new TenonError("The context has been disposed."));
    if (this.#connection === undefined && this.#connectNow() === undefined) {
      const pending = this.database.acquire();
      this.#connection = pending;
      pending.then(
        (connection) => {
          if (this.#connection === pending) this.#connected = connection;
        },
        () => {
          if (this.#connection === pending) this.#connection = undefined;
        },
      );
    }
    return this.#connection as Promise<Connection>;
  }

  /** The open connection, or one the database hands over without waiting (then it is this session's), or undefined. */
  #connectNow(): Connection | undefined {
    if (this.#connected !== undefined || this.#connection !== undefined || this.#disposed) return this.#connected;
    const connection = this.database.acquireNow?.();
    if (connection !== undefined) {
      this.#connected = connection;
      this.#connection = Promise.resolve(connection);
    }
    return connection;
  }

  #query(statement: CompiledStatement, exactIntegers: boolean): Promise<unknown[][]> {
    const connection = this.#connectNow();
    if (connection !== undefined) return connection.query(statement.sql, statement.parameters, exactIntegers);
    return this.#acquire().then((acquired) => acquired.query(statement.sql, statement.parameters, exactIntegers));
  }

  #writable(entity: object): EntityMapping {
    const mapping = EntityMapping.of(entity.constructor as EntityClass);
    if (mapping.isJoinEntity)
      throw new TenonError(`${mapping.name} is a join entity and is read-only: insert, update and delete are refused.`);
    return mapping;
  }

  /**
   * Runs one write with its events in a transaction. A write that runs no code of the application (no
   * events, no `@Validator` methods, and for a delete no relations to check) sends a single statement, which
   * is atomic by itself: it runs without BEGIN and COMMIT, saving two round trips to a server engine.
   * (Drawing a key from a sequence before an insert is not transactional on any engine anyway.)
   */
  async #write(
    kind: EntityEventKind,
    mapping: EntityMapping,
    entity: object,
    statement: (connection: Connection) => Promise<void>,
  ): Promise<void> {
    if (this.#transactionDepth === 0 && isSingleStatement(kind, mapping)) {
      await statement(this.#connectNow() ?? (await this.#acquire()));
      return;
    }
    await this.transaction(async () => {
      await runBeforeEvents(kind, mapping, entity, this);
      await statement(await this.#acquire());
      await runAfterEvents(kind, mapping, entity, this);
    });
  }

  async #expectOneRow(connection: Connection, sql: string, parameters: unknown[], mapping: EntityMapping, entity: object): Promise<void> {
    const changed = await connection.execute(sql, parameters);
    if (changed === 0) throw new ConcurrentUpdateError(mapping.name, mapping.idOf(entity));
    const version = mapping.versionColumn;
    if (version !== undefined) version.set(entity, (version.get(entity) as number) + 1);
  }

  async #applyRelations(connection: Connection, mapping: EntityMapping, entity: object): Promise<void> {
    const q = (name: string): string => this.database.dialect.quoteIdentifier(name);
    const p = this.database.dialect.placeholder(0);
    const id = mapping.idOf(entity);
    for (const relation of mapping.relations) {
      if (relation.cascade) {
        await connection.execute(`DELETE FROM ${q(relation.table)} WHERE ${q(relation.foreignKey)} = ${p}`, [id]);
      } else {
        const rows = await connection.query(`SELECT COUNT(*) FROM ${q(relation.table)} WHERE ${q(relation.foreignKey)} = ${p}`, [id]);
        const children = Number(rows[0][0]);
        if (children > 0) throw new RelationConstraintError(mapping.name, id, relation.table, children);
      }
    }
  }

  #stamp(at: ColumnMapping | undefined, by: ColumnMapping | undefined, entity: object): void {
    at?.set(entity, new Date());
    by?.set(entity, this.onGetCurrentUser?.() ?? "");
  }

  #values(columns: readonly ColumnMapping[], entity: object): unknown[] {
    const dialect = this.database.dialect;
    const values = new Array<unknown>(columns.length);
    for (let i = 0; i < columns.length; i++) {
      const column = columns[i];
      let value = column.get(entity);
      if (column.type.kind === "lazy") value = value instanceof Lazy ? value.id : null;
      values[i] = value === undefined ? null : dialect.toDatabase(value, column.type);
    }
    return values;
  }

  #keyValues(mapping: EntityMapping, entity: object): unknown[] {
    const id = mapping.idOf(entity);
    return mapping.versionColumn !== undefined ? [id, mapping.versionColumn.get(entity)] : [id];
  }
}

/** Whether a write of `kind` sends one statement and runs no application code (see `Context.#write`). */
function isSingleStatement(kind: EntityEventKind, mapping: EntityMapping): boolean {
  return !hasEvents(kind, mapping) && !hasValidatorMethods(mapping) && (kind !== "delete" || mapping.relations.length === 0);
}

/** Gives a connection back; a release that throws leaves the session nothing to do, so it is not reported to it. */
function releaseQuietly(connection: Connection): void {
  try {
    connection.release();
  } catch {
    // nothing the session can do about it
  }
}
