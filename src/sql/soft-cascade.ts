import type { RelationDeclaration } from "../mapping/entity-decorators.js";
import { type ColumnMapping, EntityMapping } from "../mapping/entity-mapping.js";
import type { Dialect } from "./dialect.js";

/**
 * How a cascading `@Relation` follows a parent that is deleted softly: the children are deleted softly too,
 * with the parent's deletion time and user, and an undelete of the parent restores the children deleted at
 * that same time (and no child deleted before on its own).
 */
export interface SoftCascade {
  /** `UPDATE <child> SET <DeletedAt> = ?[, <DeletedBy> = ?][, version + 1] WHERE <fk> = ? AND <DeletedAt> IS NULL`. */
  readonly deleteSql: string;
  /** The child's Deleted pair, in parameter order (the parent's key follows). */
  readonly deleteColumns: readonly ColumnMapping[];
  /** `UPDATE <child> SET <DeletedAt> = NULL, ...[, Updated pair = ?][, version + 1] WHERE <fk> = ? AND <DeletedAt> = ?`. */
  readonly undeleteSql: string;
  /** The child's Updated pair, in parameter order (the parent's key and its deletion time follow). */
  readonly undeleteColumns: readonly ColumnMapping[];
  /** The child's `@DeletedAt` column (the type its time is bound as). */
  readonly deletedAt: ColumnMapping;
}

const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/**
 * The soft cascade of `relation` of `parent`, or undefined when its children are deleted for real: the
 * relation does not cascade, the parent has no `@DeletedAt`, or the child entity is not known to have one.
 * The child entity is the one a `@DetailColumn` of the parent names on the relation's table and key.
 */
export function softCascadeOf(parent: EntityMapping, relation: RelationDeclaration, dialect: Dialect): SoftCascade | undefined {
  if (!relation.cascade || parent.audit.deletedAt === undefined) return undefined;
  const detail = parent.details.find(
    (d) => same(d.childForeignKey, relation.foreignKey) && same(EntityMapping.of(d.target()).tableName, relation.table),
  );
  if (detail === undefined) return undefined;
  const child = EntityMapping.of(detail.target());
  const audit = child.audit;
  if (audit.deletedAt === undefined) return undefined;
  const q = (name: string): string => dialect.quoteIdentifier(name);
  const table = q(child.tableName);
  const version = child.versionColumn;
  const bump = version !== undefined ? [`${q(version.columnName)} = ${q(version.columnName)} + 1`] : [];
  const sets = (columns: readonly ColumnMapping[]): string[] => columns.map((c, i) => `${q(c.columnName)} = ${dialect.placeholder(i)}`);
  const deleteColumns = [audit.deletedAt, ...(audit.deletedBy !== undefined ? [audit.deletedBy] : [])];
  const deletedAt = q(audit.deletedAt.columnName);
  const fk = q(relation.foreignKey);
  const deleteSql = `UPDATE ${table} SET ${[...sets(deleteColumns), ...bump].join(", ")} WHERE ${fk} = ${dialect.placeholder(deleteColumns.length)} AND ${deletedAt} IS NULL`;
  const undeleteColumns = [audit.updatedAt, audit.updatedBy].filter((c): c is ColumnMapping => c !== undefined);
  const cleared = deleteColumns.map((c) => `${q(c.columnName)} = NULL`);
  const n = undeleteColumns.length;
  const undeleteSql = `UPDATE ${table} SET ${[...cleared, ...sets(undeleteColumns), ...bump].join(", ")} WHERE ${fk} = ${dialect.placeholder(n)} AND ${deletedAt} = ${dialect.placeholder(n + 1)}`;
  return { deleteSql, deleteColumns, undeleteSql, undeleteColumns, deletedAt: audit.deletedAt };
}
