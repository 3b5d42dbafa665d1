import { EntityNotFoundError } from "../errors.js";
import type { Condition } from "../filter/condition.js";
import type { Filter } from "../filter/filter.js";
import type { EntityClass } from "../mapping/column-type.js";
import { EntityMapping } from "../mapping/entity-mapping.js";
import type { Dialect } from "../sql/dialect.js";
import type { CompiledStatement, EntityStatements } from "../sql/entity-statements.js";
import type { EntityMaterializer } from "./entity-materializer.js";
import type { IdentityMap } from "./identity-map.js";
import type { ReadSource } from "./routed-reads.js";
import { sessionStatements, sessionTenant, type TenantSource } from "./tenant-scope.js";
import type { PolicyLookup } from "./policy-scope.js";
import type { PolicyOperation } from "../policy/policy-operation.js";

/** A filter's page with the number of rows the filter matches, read in one snapshot. */
export interface CountedPage<T> {
  /** The number of rows the filter matches (its page ignored). */
  readonly count: number;
  /** The entities of the page. */
  readonly entities: T[];
}

/**
 * The reads of one session (`Context` answers them): by key through the identity map, by filter, counted
 * pages, refreshes. A read runs on the session's connection, synchronously where the engine can.
 */
export class SessionReads {
  readonly #dialect: Dialect;
  readonly #connection: ReadSource;
  readonly #identityMap: IdentityMap;
  readonly #entities: EntityMaterializer;
  readonly #tenants: TenantSource;
  readonly #policies: PolicyLookup;
  /** The entity the session's last plain update wrote (`wrote`), until `refreshWrittenNow` reloads it. */
  #written: object | undefined = undefined;

  /**
   * @param dialect the database's. @param connection where the session's reads run (its connection, or routed
   * reads). @param identityMap, entities the session's. @param tenants the session's tenant. @param policies the
   * session's policies.
   */
  constructor(
    dialect: Dialect,
    connection: ReadSource,
    identityMap: IdentityMap,
    entities: EntityMaterializer,
    tenants: TenantSource,
    policies: PolicyLookup,
  ) {
    this.#dialect = dialect;
    this.#connection = connection;
    this.#identityMap = identityMap;
    this.#entities = entities;
    this.#tenants = tenants;
    this.#policies = policies;
  }

  /** `Context.tryGetNow`: the identity map's instance, the row read at once, or a promise of it. */
  tryGetNow<T extends object>(entityClass: EntityClass<T>, id: number, includeDeleted: boolean): T | null | Promise<T | null> {
    const mapping = EntityMapping.of(entityClass);
    // A governed entity is read through its policy every time: an instance known to the session may be one the
    // caller wrote, or one read for the session itself, and not one it may read.
    const guard = mapping.hasPolicy ? this.#policies.callerPolicy(mapping)?.rows("read") : undefined;
    if (!mapping.isJoinEntity && !includeDeleted && !mapping.hasPolicy) {
      const known = this.#identityMap.get(mapping.entityClass, id);
      if (known !== undefined) return known as T;
    }
    const statements = sessionStatements(this.#tenants, mapping, this.#dialect);
    const statement = statements.selectById(id, includeDeleted, sessionTenant(this.#tenants, mapping), guard);
    const connection = this.#connection.now();
    if (connection?.queryOneNow !== undefined) {
      const row = connection.queryOneNow(statement.sql, statement.parameters, statements.exactIntegers, statement.packedSql);
      if (row !== undefined) return row === null ? null : this.#entities.materialize(mapping, row);
    } else {
      const rows = connection?.queryNow?.(statement.sql, statement.parameters, statements.exactIntegers);
      if (rows !== undefined) return this.#first(mapping, rows);
    }
    return this.#query(statement, statements.exactIntegers).then((read) => this.#first(mapping, read));
  }

  /**
   * `Context.select`: the entities a filter selects, in its order and page; a governed entity's rows are those its
   * policy grants the caller for `operation` (null: the session's own read, under no policy).
   */
  async select<T extends object>(entityClass: EntityClass<T>, filter: Filter, operation: PolicyOperation | null = "read"): Promise<T[]> {
    const mapping = EntityMapping.of(entityClass);
    const statements = sessionStatements(this.#tenants, mapping, this.#dialect);
    const where = statements.where(filter, sessionTenant(this.#tenants, mapping), this.#guard(mapping, operation));
    const rows = await this.#query(statements.select(filter, where), statements.exactIntegers);
    return rows.map((row) => this.#entities.materialize(mapping, row));
  }

  /** `Context.selectCount`: the number of rows a filter matches (of a governed entity: those the caller may read). */
  async count<T extends object>(
    entityClass: EntityClass<T>,
    filter: Filter | undefined,
    operation: PolicyOperation = "read",
  ): Promise<number> {
    const mapping = EntityMapping.of(entityClass);
    const statements = sessionStatements(this.#tenants, mapping, this.#dialect);
    const where = statements.where(filter, sessionTenant(this.#tenants, mapping), this.#guard(mapping, operation));
    const rows = await this.#query(statements.count(filter, where), false);
    return Number(rows[0][0]);
  }

  /** `Context.selectPage`: the count and the page in one snapshot (see there how). */
  async page<T extends object>(entityClass: EntityClass<T>, filter: Filter, operation: PolicyOperation = "read"): Promise<CountedPage<T>> {
    const mapping = EntityMapping.of(entityClass);
    const statements = sessionStatements(this.#tenants, mapping, this.#dialect);
    const where = statements.where(filter, sessionTenant(this.#tenants, mapping), this.#guard(mapping, operation));
    const connection = this.#connection.now();
    if (connection?.queryAllNow !== undefined) {
      const both = connection.queryAllNow([
        { ...statements.count(filter, where), exactIntegers: false },
        { ...statements.select(filter, where), exactIntegers: statements.exactIntegers },
      ]);
      if (both !== undefined) {
        return { count: Number(both[0][0][0]), entities: both[1].map((row) => this.#entities.materialize(mapping, row)) };
      }
    }
    const rows = await this.#query(statements.selectCounted(filter, where), statements.exactIntegers);
    if (rows.length === 0) {
      const count = filter.offset > 0 ? Number((await this.#query(statements.count(filter, where), false))[0][0]) : 0;
      return { count, entities: [] };
    }
    const countColumn = rows[0].length - 1;
    return { count: Number(rows[0][countColumn]), entities: rows.map((row) => this.#entities.materialize(mapping, row)) };
  }

  /**
   * `Context.refresh`: reads the entity's row again into the same object; at once where the engine can (then
   * undefined, or a throw when the row is gone), otherwise the promise of it.
   */
  refreshNow<T extends object>(entity: T): Promise<void> | undefined {
    const mapping = EntityMapping.of(entity.constructor as EntityClass<T>);
    const statements = sessionStatements(this.#tenants, mapping, this.#dialect);
    const statement = statements.selectById(
      mapping.idOf(entity),
      true,
      sessionTenant(this.#tenants, mapping),
      this.#guard(mapping, "read"),
    );
    const rows = this.#connection.now()?.queryNow?.(statement.sql, statement.parameters, statements.exactIntegers);
    if (rows !== undefined) {
      this.#refill(mapping, entity, rows);
      return undefined;
    }
    return this.#query(statement, statements.exactIntegers).then((read) => this.#refill(mapping, entity, read));
  }

  /**
   * Records that a plain update (one statement, no application code around it: see `SessionWrites.updateNow`) just
   * wrote `entity`, so that `refreshWrittenNow` may read only what the entity does not hold.
   */
  wrote(entity: object): void {
    this.#written = entity;
  }

  /**
   * `refreshNow` of an entity just updated: after the plain update that `wrote` recorded, of an entity without
   * policy, references or details, only `EntityStatements.rereadColumns` are read (the entity holds the values of
   * the other columns as the row does); any other entity is read again in full.
   */
  refreshWrittenNow<T extends object>(entity: T): Promise<void> | undefined {
    if (this.#written !== entity) return this.refreshNow(entity);
    this.#written = undefined;
    const mapping = EntityMapping.of(entity.constructor as EntityClass<T>);
    if (mapping.hasPolicy || mapping.hasLazyMembers) return this.refreshNow(entity);
    const statements = sessionStatements(this.#tenants, mapping, this.#dialect);
    const id = mapping.idOf(entity);
    const statement = statements.rereadById(id, sessionTenant(this.#tenants, mapping));
    const rows = this.#connection.now()?.queryNow?.(statement.sql, statement.parameters, statements.exactIntegers);
    if (rows !== undefined) {
      this.#refillReread(statements, entity, rows);
      return undefined;
    }
    return this.#query(statement, statements.exactIntegers).then((read) => this.#refillReread(statements, entity, read));
  }

  /** `refreshWrittenNow`'s entity filled from the first of `rows`; `EntityNotFoundError` when there is none. */
  #refillReread(statements: EntityStatements, entity: object, rows: unknown[][]): void {
    if (rows.length === 0) throw new EntityNotFoundError(statements.mapping.name, statements.mapping.idOf(entity));
    this.#entities.fillReread(statements, entity, rows[0]);
  }

  /** The entity filled again from the first of `rows`; `EntityNotFoundError` when there is none. */
  #refill<T extends object>(mapping: EntityMapping<T>, entity: T, rows: unknown[][]): void {
    if (rows.length === 0) throw new EntityNotFoundError(mapping.name, mapping.idOf(entity));
    this.#entities.fill(mapping, entity, rows[0]);
  }

  /**
   * The stored row of a governed entity's key as `operation` (and the session's tenant) lets the session see it,
   * filled into a new object outside the identity map: what a write compares the entity with. Null when it reads
   * as absent.
   */
  async storedRow(mapping: EntityMapping, id: number, operation: PolicyOperation): Promise<object | null> {
    const statements = sessionStatements(this.#tenants, mapping, this.#dialect);
    const statement = statements.selectById(id, false, sessionTenant(this.#tenants, mapping), this.#guard(mapping, operation));
    const rows = await this.#query(statement, statements.exactIntegers);
    if (rows.length === 0) return null;
    const stored = mapping.create();
    this.#entities.fill(mapping, stored, rows[0]);
    return stored;
  }

  /** The condition a governed entity's policy puts on the rows of `operation`; undefined for none. */
  #guard(mapping: EntityMapping, operation: PolicyOperation | null): Condition | undefined {
    return mapping.hasPolicy && operation !== null ? this.#policies.callerPolicy(mapping)?.rows(operation) : undefined;
  }

  /** The entity of the first row, or null for no row. */
  #first<T extends object>(mapping: EntityMapping<T>, rows: unknown[][]): T | null {
    return rows.length === 0 ? null : this.#entities.materialize(mapping, rows[0]);
  }

  #query(statement: CompiledStatement, exactIntegers: boolean): Promise<unknown[][]> {
    const connection = this.#connection.now();
    if (connection !== undefined) return connection.query(statement.sql, statement.parameters, exactIntegers);
    return this.#connection.acquire().then((acquired) => acquired.query(statement.sql, statement.parameters, exactIntegers));
  }
}
