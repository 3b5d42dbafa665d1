import { MappingError } from "../errors.js";
import type { ColumnType, ConcreteEntityClass, EntityClass } from "./column-type.js";
import type { ColumnDeclaration, DetailColumnDeclaration } from "./column-decorators.js";
import type { JoinDeclaration, RelationDeclaration, WhereClauseConstant } from "./entity-decorators.js";
import { auditRoles, MappingKey, type AuditRole } from "./mapping-keys.js";
import { rawEntityOf, type RawEntity, type RawMember } from "./metadata-store.js";
import { MappingMessages } from "./mapping-messages.js";
import { PerKeyCache } from "../per-key-cache.js";

/** One mapped column of an entity: a field of the class bound to a column of its table or of a joined one. */
export class ColumnMapping {
  /** The property name: the field name without `#` (also the JSON name). */
  readonly property: string;
  /** The database column name as declared. */
  readonly columnName: string;
  /** The `@Join` alias of a joined column; undefined for the entity's own table. */
  readonly alias: string | undefined;
  /** The declared type. */
  readonly type: ColumnType<unknown>;
  /** Whether this is the primary key. */
  readonly isPrimaryKey: boolean;
  /** Whether this is the version column. */
  readonly isVersion: boolean;
  /** Whether `@TenantColumn` marks it. */
  readonly isTenant: boolean;
  /** The change-tracking role, if the column has one. */
  readonly auditRole: AuditRole | undefined;
  /** False when `@NotFilterable` marks it. */
  readonly filterable: boolean;
  /** Everything the decorators recorded about the field (validation, JSON, ...), by key. */
  readonly annotations: ReadonlyMap<symbol, readonly unknown[]>;
  /** Reads the field of an entity. */
  readonly get: (entity: object) => unknown;
  /** Writes the field of an entity. */
  readonly set: (entity: object, value: unknown) => void;

  /** @internal */
  constructor(member: RawMember, declaration: ColumnDeclaration, auditRole: AuditRole | undefined) {
    this.property = member.name.startsWith("#") ? member.name.slice(1) : member.name;
    this.columnName = declaration.name;
    this.alias = declaration.alias;
    this.type = declaration.type;
    this.isPrimaryKey = member.annotations.has(MappingKey.primaryKey);
    this.isVersion = member.annotations.has(MappingKey.versionColumn);
    this.isTenant = member.annotations.has(MappingKey.tenantColumn);
    this.auditRole = auditRole;
    this.filterable = !member.annotations.has(MappingKey.notFilterable);
    this.annotations = member.annotations;
    this.get = member.get;
    this.set = member.set ?? (() => undefined);
  }

  /** Whether the column belongs to a joined table. */
  get isJoined(): boolean {
    return this.alias !== undefined;
  }
}

/** One detail collection of an entity. */
export class DetailMapping {
  /** The property name (without `#`). */
  readonly property: string;
  /** The column of the master matched by the children, normally the primary key column. */
  readonly localColumn: ColumnMapping;
  /** The child column pointing back. */
  readonly childForeignKey: string;
  /** The child class. */
  readonly target: () => EntityClass;
  /** Everything the decorators recorded about the field. */
  readonly annotations: ReadonlyMap<symbol, readonly unknown[]>;
  /** Reads the `LazyList` of an entity. */
  readonly get: (entity: object) => unknown;
  /** Writes the field of an entity. */
  readonly set: (entity: object, value: unknown) => void;

  /** @internal */
  constructor(member: RawMember, declaration: DetailColumnDeclaration, localColumn: ColumnMapping) {
    this.property = member.name.startsWith("#") ? member.name.slice(1) : member.name;
    this.localColumn = localColumn;
    this.childForeignKey = declaration.childForeignKey;
    this.target = declaration.target;
    this.annotations = member.annotations;
    this.get = member.get;
    this.set = member.set ?? (() => undefined);
  }
}

/** A named constant parameter of the entity's `@WhereClause`. */
export interface WhereClauseParameterMapping {
  /** The name used as `:name` in the clause. */
  readonly name: string;
  /** The constant. */
  readonly value: WhereClauseConstant;
}

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
  /** Class-level records of every layer, by key. */
  readonly annotations: ReadonlyMap<symbol, readonly unknown[]>;
  /** Every decorated member (columns, details, methods), by member name as declared. */
  readonly members: ReadonlyMap<string, RawMember>;
  readonly #byProperty = new Map<string, ColumnMapping>();

  private constructor(entityClass: ConcreteEntityClass<T>, raw: RawEntity) {
    this.entityClass = entityClass;
    this.name = entityClass.name;
    this.annotations = raw.annotations;
    this.members = raw.members;
    const fail = (what: string): never => {
      throw new MappingError(MappingMessages.invalidEntity(this.name, what));
    };

    const tables = raw.annotations.get(MappingKey.table) ?? [];
    if (tables.length === 0) fail(MappingMessages.noTable);
    if (tables.length > 1) fail(MappingMessages.appliedTwice("Table"));
    this.tableName = tables[0] as string;
    const sequences = raw.annotations.get(MappingKey.sequence) ?? [];
    if (sequences.length > 1) fail(MappingMessages.appliedTwice("Sequence"));
    this.sequenceName = sequences[0] as string | undefined;
    const whereClauses = raw.annotations.get(MappingKey.whereClause) ?? [];
    if (whereClauses.length > 1) fail(MappingMessages.appliedTwice("WhereClause"));
    this.whereClause = whereClauses[0] as string | undefined;
    this.whereClauseParameters = (raw.annotations.get(MappingKey.whereClauseParameter) ?? []) as WhereClauseParameterMapping[];
    for (const parameter of this.whereClauseParameters) {
      if (!isWhereClauseConstant(parameter.value)) {
        fail(MappingMessages.whereClauseParameterType(parameter.name, describe(parameter.value)));
      }
    }
    if (this.whereClauseParameters.length > 0 && this.whereClause === undefined) fail(MappingMessages.whereClauseParameterAlone);
    this.relations = (raw.annotations.get(MappingKey.relation) ?? []) as RelationDeclaration[];
    // Class decorators run bottom-up: reverse them so the joins keep the order they are written in.
    this.joins = [...((raw.annotations.get(MappingKey.join) ?? []) as JoinDeclaration[])].reverse();
    const aliases = new Set<string>();
    for (const join of this.joins) {
      const alias = join.alias.toLowerCase();
      if (aliases.has(alias)) fail(MappingMessages.duplicateJoinAlias(join.alias));
      if (
        join.sourceTableOrAlias !== undefined &&
        !aliases.has(join.sourceTableOrAlias.toLowerCase()) &&
        join.sourceTableOrAlias.toLowerCase() !== this.tableName.toLowerCase()
      ) {
        fail(MappingMessages.joinChainUnknown(join.alias, join.sourceTableOrAlias));
      }
      aliases.add(alias);
    }

    const columns: ColumnMapping[] = [];
    const audit: Partial<Record<AuditRole, ColumnMapping>> = {};
    const detailMembers: [RawMember, DetailColumnDeclaration][] = [];
    for (const member of raw.members.values()) {
      const field = member.name;
      const columnDeclarations = (member.annotations.get(MappingKey.column) ?? []) as ColumnDeclaration[];
      const detailDeclarations = (member.annotations.get(MappingKey.detailColumn) ?? []) as DetailColumnDeclaration[];
      for (const key of Object.values(MappingKey)) {
        if ((member.annotations.get(key)?.length ?? 0) > 1)
          fail(MappingMessages.memberAppliedTwice(field, key.description?.replace("tenon.", "") ?? ""));
      }
      const roles = auditRoles.filter((role) => member.annotations.has(MappingKey[role]));
      if (roles.length > 1) fail(MappingMessages.severalAuditRoles(field, roles.join(", ")));
      const isMarked =
        member.annotations.has(MappingKey.primaryKey) ||
        member.annotations.has(MappingKey.versionColumn) ||
        member.annotations.has(MappingKey.tenantColumn) ||
        member.annotations.has(MappingKey.notFilterable) ||
        roles.length > 0;
      if (member.kind !== "field" && (columnDeclarations.length > 0 || detailDeclarations.length > 0 || isMarked))
        fail(MappingMessages.decoratorOnNonField(member.name));
      if (member.isStatic && (columnDeclarations.length > 0 || detailDeclarations.length > 0)) fail(MappingMessages.staticField(field));
      if (detailDeclarations.length > 0) {
        if (columnDeclarations.length > 0) fail(MappingMessages.columnAndDetail(field));
        if (isMarked) fail(MappingMessages.detailWithOthers(field));
        detailMembers.push([member, detailDeclarations[0]]);
        continue;
      }
      if (columnDeclarations.length === 0) {
        if (isMarked) fail(MappingMessages.markedWithoutColumn(field));
        continue;
      }
      const declaration = columnDeclarations[0];
      const role = roles[0];
      const column = new ColumnMapping(member, declaration, role);
      if (column.alias !== undefined && !aliases.has(column.alias.toLowerCase())) {
        fail(MappingMessages.unknownJoinAlias(field, column.alias, column.columnName));
      }
      if (column.isPrimaryKey && (column.type.kind !== "int32" || column.type.nullable)) fail(MappingMessages.primaryKeyType(field));
      if (column.isVersion && (column.type.kind !== "int32" || column.type.nullable)) fail(MappingMessages.versionType(field));
      if (column.isPrimaryKey && column.isVersion) fail(MappingMessages.keyIsVersion(field));
      if (
        column.isTenant &&
        (column.type.kind !== "string" || column.type.nullable || column.isPrimaryKey || column.isVersion || role !== undefined)
      )
        fail(MappingMessages.tenantType(field));
      if ((column.isPrimaryKey || column.isVersion || role !== undefined) && column.alias !== undefined)
        fail(MappingMessages.joinedSpecialColumn(field));
      if (role?.endsWith("At") && (column.type.kind !== "date" || !column.type.nullable)) {
        fail(MappingMessages.auditDateType(field, capitalize(role), `${column.type.kind}${column.type.nullable ? " or null" : ""}`));
      }
      if (role?.endsWith("By") && column.type.kind !== "string")
        fail(MappingMessages.auditUserType(field, capitalize(role), column.type.kind));
      if (role !== undefined) {
        if (audit[role] !== undefined) fail(MappingMessages.appliedTwice(capitalize(role)));
        audit[role] = column;
      }
      columns.push(column);
    }
    const keys = columns.filter((column) => column.isPrimaryKey);
    if (keys.length === 0) fail(MappingMessages.noPrimaryKey);
    if (keys.length > 1) fail(MappingMessages.severalPrimaryKeys(keys.length, keys.map((k) => k.property).join(", ")));
    const versions = columns.filter((column) => column.isVersion);
    if (versions.length > 1) fail(MappingMessages.appliedTwice("VersionColumn"));
    if (audit.deletedBy !== undefined && audit.deletedAt === undefined) fail(MappingMessages.deletedByWithoutDeletedAt);
    const tenants = columns.filter((column) => column.isTenant && column.alias === undefined);
    if (tenants.length > 1) fail(MappingMessages.appliedTwice("TenantColumn"));
    const joinedTenants = columns.filter((column) => column.isTenant && column.alias !== undefined);
    if (joinedTenants.length > 0 && tenants.length === 0) fail(MappingMessages.joinedTenantAlone(joinedTenants[0].property));
    const seen = new Map<string, ColumnMapping>();
    for (const column of columns) {
      const key = `${column.alias?.toLowerCase() ?? ""}.${column.columnName.toLowerCase()}`;
      if (seen.has(key)) fail(MappingMessages.sameColumnTwice(seen.get(key)?.property ?? "", column.property, column.columnName));
      seen.set(key, column);
      this.#byProperty.set(column.property, column);
    }
    this.primaryKey = keys[0];
    this.versionColumn = versions[0];
    this.tenantColumn = tenants[0];
    this.joinedTenantColumns = joinedTenants;
    this.columns = columns;
    this.ownColumns = columns.filter((column) => column.alias === undefined);
    this.audit = audit;
    this.details = detailMembers.map(([member, declaration]) => {
      const local = columns.find(
        (column) => column.alias === undefined && column.columnName.toLowerCase() === declaration.localColumn.toLowerCase(),
      );
      if (local === undefined) return fail(MappingMessages.detailColumnUnknown(member.name, declaration.localColumn));
      return new DetailMapping(member, declaration, local);
    });
  }

  /** The mapping of `entityClass`, built and validated on first use. Throws `MappingError` for an invalid mapping. */
  static of<T extends object>(entityClass: EntityClass<T>): EntityMapping<T> {
    const cached = cache.get(entityClass);
    if (cached !== undefined) return cached as EntityMapping<T>;
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

function isWhereClauseConstant(value: unknown): boolean {
  switch (typeof value) {
    case "string":
    case "bigint":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    default:
      return value instanceof Date && !Number.isNaN(value.getTime());
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "object") return (value as object).constructor?.name ?? "object";
  return typeof value;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
