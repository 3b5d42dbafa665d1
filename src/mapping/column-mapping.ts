import type { ColumnType, EntityClass } from "./column-type.js";
import type { ColumnDeclaration, DetailColumnDeclaration } from "./column-decorators.js";
import { MappingKey, type AuditRole } from "./mapping-keys.js";
import type { RawMember } from "./metadata-store.js";

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
