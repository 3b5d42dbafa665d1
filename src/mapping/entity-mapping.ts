import { MappingError } from "../errors.js";
import { ColumnMapping, DetailMapping } from "./column-mapping.js";
import type { ConcreteEntityClass, EntityClass } from "./column-type.js";
import type { JoinDeclaration, RelationDeclaration } from "./entity-decorators.js";
import { readEntityDeclarations, type WhereClauseParameterMapping } from "./entity-declarations.js";
import { changeFeedKey, policyKey, type AuditRole } from "./mapping-keys.js";
import type { ChangeFeedOptions } from "./change-feed-decorator.js";
import { checkMappingRules } from "./mapping-rules.js";
import { rawEntityOf, type RawEntity, type RawMember } from "./metadata-store.js";
import { MappingMessages } from "./mapping-messages.js";
import { PerKeyCache } from "../per-key-cache.js";

export { ColumnMapping, DetailMapping, type WhereClauseParameterMapping };

/** A check that another layer (validation, events, JSON) runs when a class is mapped. @internal */
export type MappingCheck = (mapping: EntityMapping, raw: RawEntity) => void;

const mappingChecks: MappingCheck[] = [];

/** Registers a check run on every class when it is first mapped; it throws `MappingError` to refuse it. @internal */
export function registerMappingCheck(check: MappingCheck): void {
  mappingChecks.push(check);
}

/** What a plan is built from: the decorated members and the class-level records (of the raw entity or its mapping). @internal */
export interface PlanSource {
  readonly members: ReadonlyMap<string, RawMember>;
  readonly annotations: ReadonlyMap<symbol, readonly unknown[]>;
}

/**
 * The plan that another layer (JSON, validation, events) works out once per mapping: built as a check when a
 * class is first mapped, so that a misuse the build finds refuses the class with `MappingError`, then kept; built
 * on first use for a class that was mapped before the layer was loaded. @internal
 */
export function planPerMapping<P>(build: (mapping: EntityMapping, source: PlanSource) => P): PerKeyCache<EntityMapping, P> {
  const plans = new PerKeyCache<EntityMapping, P>((mapping) => build(mapping, mapping));
  registerMappingCheck((mapping, raw) => plans.keep(mapping, build(mapping, raw)));
  return plans;
}

const cache = new WeakMap<object, EntityMapping>();
/** The class `EntityMapping.of` answered last, and its mapping (a mapping lives as long as its class anyway). */
let lastClass: object | undefined;
let lastMapping: EntityMapping | undefined;

/** The `@ChangeFeed` of a mapping being built: at most one, not on a join entity, naming columns of the entity's own table. */
function changeFeedOf(mapping: EntityMapping, raw: RawEntity): ChangeFeedOptions | undefined {
  const fail = (problem: string): never => {
    throw new MappingError(MappingMessages.invalidEntity(mapping.name, problem));
  };
  const feeds = raw.annotations.get(changeFeedKey) ?? [];
  if (feeds.length > 1) fail(MappingMessages.appliedTwice("ChangeFeed"));
  const feed = feeds[0] as ChangeFeedOptions | undefined;
  if (feed === undefined) return undefined;
  if (mapping.joins.length > 0) fail(MappingMessages.changeFeedOnJoin);
  for (const member of feed.members ?? []) {
    if (!mapping.ownColumns.some((column) => column.property === member)) fail(MappingMessages.changeFeedUnknownMember(member));
  }
  return feed;
}

/**
 * The validated mapping of an entity class, built from its decorators on first use and cached.
 * Every mapping rule that can be checked without a database is checked here (docs/entities.md).
 */
export class EntityMapping<T extends object = object> {
  /** The entity class. */
  readonly entityClass: ConcreteEntityClass<T>;
  /** The class name, used in messages and metadata. */
  readonly name: string;
  /** The table name as declared. */
  readonly tableName: string;
  /** The sequence name, when declared. */
  readonly sequenceName: string | undefined;
  /** The primary key column. */
  readonly primaryKey: ColumnMapping;
  /** The version column, when declared. */
  readonly versionColumn: ColumnMapping | undefined;
  /** The `@TenantColumn` of the entity's own table, when declared: the entity is scoped by tenant. */
  readonly tenantColumn: ColumnMapping | undefined;
  /** The `@TenantColumn`s of joined tables: each joined row must have the entity's own tenant. */
  readonly joinedTenantColumns: readonly ColumnMapping[];
  /** Every column (own and joined), in declaration order. */
  readonly columns: readonly ColumnMapping[];
  /** The columns of the entity's own table, in declaration order. */
  readonly ownColumns: readonly ColumnMapping[];
  /** The detail collections. */
  readonly details: readonly DetailMapping[];
  /** The child relations. */
  readonly relations: readonly RelationDeclaration[];
  /** The joins, in declaration order. */
  readonly joins: readonly JoinDeclaration[];
  /** The fixed WHERE clause, when declared. */
  readonly whereClause: string | undefined;
  /** The constant parameters of the WHERE clause. */
  readonly whereClauseParameters: readonly WhereClauseParameterMapping[];
  /** The change-tracking columns by role. */
  readonly audit: Readonly<Partial<Record<AuditRole, ColumnMapping>>>;
  /** The entity's `@ChangeFeed` options: every committed write of it leaves a change record; undefined without one. */
  readonly changeFeed: ChangeFeedOptions | undefined;
  /**
   * Whether a `@Policy` governs the entity: its statements then depend on the session's caller (docs/policies.md).
   * An entity without one runs the statements it ran before, after this one test.
   */
  readonly hasPolicy: boolean;
  /** Whether the entity has `Lazy` references or detail lists, which a session binds to itself (an entity without loads nothing lazily). */
  readonly hasLazyMembers: boolean;
  /** Class-level records of every layer, by key. */
  readonly annotations: ReadonlyMap<symbol, readonly unknown[]>;
  /** Every decorated member (columns, details, methods), by member name as declared. */
  readonly members: ReadonlyMap<string, RawMember>;
  readonly #byProperty = new Map<string, ColumnMapping>();

  /** Reads the decorators, checks every rule (`checkMappingRules`, which throws `MappingError`), then keeps the result. */
  private constructor(entityClass: ConcreteEntityClass<T>, raw: RawEntity) {
    this.entityClass = entityClass;
    this.name = entityClass.name;
    this.annotations = raw.annotations;
    this.members = raw.members;
    const declared = readEntityDeclarations(raw);
    checkMappingRules(this.name, declared);
    this.tableName = declared.tables[0];
    this.sequenceName = declared.sequences[0];
    this.whereClause = declared.whereClauses[0];
    this.whereClauseParameters = declared.whereClauseParameters;
    this.relations = declared.relations;
    this.joins = declared.joins;
    this.primaryKey = declared.keys[0];
    this.versionColumn = declared.versions[0];
    this.tenantColumn = declared.ownTenants[0];
    this.joinedTenantColumns = declared.joinedTenants;
    this.columns = declared.columns;
    this.ownColumns = declared.columns.filter((column) => column.alias === undefined);
    this.audit = declared.audit;
    for (const column of declared.columns) this.#byProperty.set(column.property, column);
    this.changeFeed = changeFeedOf(this, raw);
    this.hasPolicy = raw.annotations.has(policyKey);
    // The rules guarantee each detail's own column.
    this.details = declared.details.map(
      ({ member, declaration, localColumn }) => new DetailMapping(member, declaration, localColumn as ColumnMapping),
    );
    this.hasLazyMembers = this.details.length > 0 || this.columns.some((column) => column.type.kind === "lazy");
  }

  /** The mapping of `entityClass`, built and validated on first use. Throws `MappingError` for an invalid mapping. */
  static of<T extends object>(entityClass: EntityClass<T>): EntityMapping<T> {
    // The hot paths ask for one class many times a request: the last answer is checked before the WeakMap.
    if (entityClass === lastClass) return lastMapping as EntityMapping<T>;
    const cached = cache.get(entityClass);
    if (cached !== undefined) {
      lastClass = entityClass;
      lastMapping = cached;
      return cached as EntityMapping<T>;
    }
    const raw = rawEntityOf(entityClass);
    if (raw === undefined) throw new MappingError(MappingMessages.notAnEntity(entityClass.name));
    const mapping = new EntityMapping<T>(entityClass as ConcreteEntityClass<T>, raw);
    for (const check of mappingChecks) check(mapping, raw);
    cache.set(entityClass, mapping);
    return mapping;
  }

  /** Whether the entity reads joined tables (and so is read-only). */
  get isJoinEntity(): boolean {
    return this.joins.length > 0;
  }

  /** Whether delete is a soft delete (a `@DeletedAt` column exists). */
  get isSoftDelete(): boolean {
    return this.audit.deletedAt !== undefined;
  }

  /** The column mapped to a property name (exact, without `#`). */
  column(property: string): ColumnMapping | undefined {
    return this.#byProperty.get(property);
  }

  /** Creates an empty instance with the class's no-argument constructor. */
  create(): T {
    return new this.entityClass();
  }

  /** Reads the primary key of an entity. */
  idOf(entity: T): number {
    return this.primaryKey.get(entity) as number;
  }
}
