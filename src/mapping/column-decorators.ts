import "./symbol-metadata.js";
import type { ColumnType, EntityClass } from "./column-type.js";
import type { LazyList } from "./lazy.js";
import { annotateMember } from "./metadata-store.js";
import { MappingKey } from "./mapping-keys.js";
import { MappingMessages } from "./mapping-messages.js";

/**
 * Compiles only when the field type `F` is exactly the declared type `V`: a field that cannot hold
 * every value of the column (say `string` for a nullable column) is a compile error too.
 */
export type ExactField<F, V> = [V] extends [F]
  ? [F] extends [V]
    ? unknown
    : { readonly "field type must be exactly the column type": V }
  : { readonly "field type must be exactly the column type": V };

/** A field decorator that requires the field to hold values of exactly type `V`. */
export type FieldDecorator<V> = <This, F extends V>(
  value: undefined,
  context: ClassFieldDecoratorContext<This, F> & ExactField<F, V>,
) => void;

/** One `@Column` as declared. */
export interface ColumnDeclaration {
  /** The alias of a `@Join` for a joined column; undefined for the entity's own table. */
  readonly alias: string | undefined;
  /** The column name in the database. */
  readonly name: string;
  /** The declared type. */
  readonly type: ColumnType<unknown>;
}

/** Maps the field to a column of the entity's table, of the declared type. */
export function Column<V>(name: string, type: ColumnType<V>): FieldDecorator<V>;
/** Maps the field to a column of a joined table; `alias` must match a `@Join`. */
export function Column<V>(alias: string, name: string, type: ColumnType<V>): FieldDecorator<V>;
export function Column<V>(first: string, second: string | ColumnType<V>, third?: ColumnType<V>): FieldDecorator<V> {
  const declaration: ColumnDeclaration =
    typeof second === "string"
      ? { alias: first, name: second, type: third as ColumnType<unknown> }
      : { alias: undefined, name: first, type: second as ColumnType<unknown> };
  if (declaration.type === undefined) throw new TypeError(MappingMessages.columnWithoutType(declaration.name));
  return (_value, context) => annotateMember(context, MappingKey.column, declaration);
}

/** One `@DetailColumn` as declared. */
export interface DetailColumnDeclaration {
  /** The column of this entity that children are matched against, normally the primary key. */
  readonly localColumn: string;
  /** The child column that points back to this entity. */
  readonly childForeignKey: string;
  /** The child entity class. */
  readonly target: () => EntityClass;
}

/**
 * A detail collection: children whose `childForeignKey` equals this entity's
 * `localColumn`, loaded on first access. Never part of an INSERT or UPDATE.
 */
export function DetailColumn<T extends object>(
  localColumn: string,
  childForeignKey: string,
  target: () => EntityClass<T>,
): FieldDecorator<LazyList<T>> {
  const declaration: DetailColumnDeclaration = { localColumn, childForeignKey, target };
  return (_value, context) => annotateMember(context, MappingKey.detailColumn, declaration);
}

/** The primary key: an int32 `number` field that also carries `@Column`. Exactly one per entity. */
export function PrimaryKey<This>(_value: undefined, context: ClassFieldDecoratorContext<This, number>): void {
  annotateMember(context, MappingKey.primaryKey, true);
}

/** The optimistic-locking version: an int32 field incremented by every update. */
export function VersionColumn<This>(_value: undefined, context: ClassFieldDecoratorContext<This, number>): void {
  annotateMember(context, MappingKey.versionColumn, true);
}

/**
 * The tenant a row belongs to (docs/entities.md "Tenant scoping"): a string field. A session with a tenant
 * (`Context.onGetCurrentTenant`) reads, updates, deletes and counts only rows of its tenant and writes it on
 * insert; a session without one cannot reach the entity at all, unless it is explicitly `unscoped`. Never read
 * from or written to JSON. On a joined column (`@Column(alias, ...)`) of a join entity it ties the joined
 * table's rows to the entity's own tenant column.
 */
export function TenantColumn<This>(_value: undefined, context: ClassFieldDecoratorContext<This, string>): void {
  annotateMember(context, MappingKey.tenantColumn, true);
}

/** Keeps the column out of the HTTP JSON filter: `where` and `orderBy` naming it answer 400. */
export function NotFilterable<This, V>(_value: undefined, context: ClassFieldDecoratorContext<This, V>): void {
  annotateMember(context, MappingKey.notFilterable, true);
}
