import type { Connection } from "../engines/database.js";
import { ConcurrentUpdateError, ReadOnlyEntityError, RelationConstraintError } from "../errors.js";
import { hasEvents, type EntityEventKind } from "../events/entity-events.js";
import type { EntityClass } from "../mapping/column-type.js";
import { type ColumnMapping, EntityMapping } from "../mapping/entity-mapping.js";
import { Lazy } from "../mapping/lazy.js";
import type { Dialect } from "../sql/dialect.js";
import type { EntityStatements } from "../sql/entity-statements.js";
import type { Condition } from "../filter/condition.js";
import { hasValidatorMethods } from "../validation/validate-entity.js";
import { generateFunction } from "../generated-code.js";
import { PerKeyCache } from "../per-key-cache.js";

/** The mapping of an entity to be written; a join entity is read-only and refuses every write. */
export function writableMapping(entity: object): EntityMapping {
  const mapping = EntityMapping.of(entity.constructor as EntityClass);
  if (mapping.isJoinEntity) throw new ReadOnlyEntityError(mapping.name);
  return mapping;
}

/** The values of `columns` of an entity, in order, converted for the driver (a reference writes its id). */
export function columnValues(columns: readonly ColumnMapping[], entity: object, dialect: Dialect): unknown[] {
  return valueReaders.of(dialect).of(columns)(entity);
}

/** Reads the values of a list of columns of an entity, converted by a dialect (see `columnValues`). */
type ValueReader = (entity: object) => unknown[];

/** The reader of each list of columns (a statement's, kept as long as it) on each dialect, built once. */
const valueReaders = new PerKeyCache(
  (dialect: Dialect) =>
    new PerKeyCache((columns: readonly ColumnMapping[]): ValueReader => {
      return compileValueReader(columns, dialect) ?? ((entity) => readColumnValues(columns, entity, dialect));
    }),
);

/**
 * `readColumnValues` as one function built for a list of columns and a dialect: a statement per column, each
 * calling its own getter and the dialect's conversion of its type (`Dialect.toDatabaseOf`), and the values answered
 * as one array literal. Nothing of the mapping but indexes enters the text. Undefined where the platform refuses
 * code generation.
 * @internal
 */
export function compileValueReader(columns: readonly ColumnMapping[], dialect: Dialect): ValueReader | undefined {
  const parameters: string[] = ["Lazy"];
  const values: unknown[] = [Lazy];
  const statements: string[] = [];
  const names: string[] = [];
  columns.forEach((column, i) => {
    const type = column.type;
    parameters.push(`get${i}`, `write${i}`);
    values.push(column.get, dialect.toDatabaseOf?.(type) ?? ((value: unknown) => dialect.toDatabase(value, type)));
    statements.push(
      type.kind === "lazy" ? `value = get${i}(entity);\n  value = value instanceof Lazy ? value.id : null;` : `value = get${i}(entity);`,
      `const v${i} = value === undefined ? null : write${i}(value);`,
    );
    names.push(`v${i}`);
  });
  return generateFunction<ValueReader>(
    parameters,
    values,
    `return function columnValues(entity) {\n  let value;\n  ${statements.join("\n  ")}\n  return [${names.join(", ")}];\n};`,
  );
}

/** The generic `columnValues`: the definition the compiled reader follows. @internal */
export function readColumnValues(columns: readonly ColumnMapping[], entity: object, dialect: Dialect): unknown[] {
  const values = new Array<unknown>(columns.length);
  for (let i = 0; i < columns.length; i++) {
    const column = columns[i];
    let value = column.get(entity);
    if (column.type.kind === "lazy") value = value instanceof Lazy ? value.id : null;
    values[i] = value === undefined ? null : dialect.toDatabase(value, column.type);
  }
  return values;
}

/** The values of the WHERE of an update or delete by key: the id, and the version when the entity has one. */
export function keyValues(mapping: EntityMapping, entity: object): unknown[] {
  const id = mapping.idOf(entity);
  return mapping.versionColumn !== undefined ? [id, mapping.versionColumn.get(entity)] : [id];
}

/** Fills a change-tracking pair: the time now and the current user's name (empty when nobody is known). */
export function stamp(at: ColumnMapping | undefined, by: ColumnMapping | undefined, entity: object, user: string | undefined): void {
  at?.set(entity, new Date());
  by?.set(entity, user ?? "");
}

/**
 * Runs a write by key that must change one row: none changed means the row is gone or its version moved on
 * (`ConcurrentUpdateError`); otherwise the entity's version follows the row's.
 */
export async function expectOneRow(
  connection: Connection,
  sql: string,
  parameters: unknown[],
  mapping: EntityMapping,
  entity: object,
): Promise<void> {
  oneRowChanged(await connection.execute(sql, parameters), mapping, entity);
}

/** What `expectOneRow` checks once its statement ran and changed `changed` rows. */
function oneRowChanged(changed: number, mapping: EntityMapping, entity: object): void {
  if (changed === 0) throw new ConcurrentUpdateError(mapping.name, mapping.idOf(entity));
  const version = mapping.versionColumn;
  if (version !== undefined) version.set(entity, (version.get(entity) as number) + 1);
}

/** The parameters of a write by key: the values of `columns`, the key (and version), then the tenant (see `writeByKey`). */
function byKeyParameters(
  statements: EntityStatements,
  columns: readonly ColumnMapping[],
  entity: object,
  tenant: string | undefined,
): unknown[] {
  const parameters = columnValues(columns, entity, statements.dialect);
  const mapping = statements.mapping;
  parameters.push(mapping.idOf(entity));
  if (mapping.versionColumn !== undefined) parameters.push(mapping.versionColumn.get(entity));
  // A statement scoped by tenant ends with the tenant's placeholder (see `EntityStatements`).
  if (tenant !== undefined) parameters.push(tenant);
  return parameters;
}

/**
 * Runs an UPDATE by key (`sql`) that sets `columns` of the entity, then checks it as `expectOneRow` does:
 * the values of `columns` are bound first, the key (and version) after them, then the tenant (of a statement
 * scoped by tenant), and last the values of a policy's `guard`, which the statement then also requires.
 */
export function writeByKey(
  connection: Connection,
  statements: EntityStatements,
  sql: string,
  columns: readonly ColumnMapping[],
  entity: object,
  tenant?: string,
  guard?: Condition,
): Promise<void> {
  const mapping = statements.mapping;
  const parameters = byKeyParameters(statements, columns, entity, tenant);
  if (guard === undefined) return expectOneRow(connection, sql, parameters, mapping, entity);
  // A policy's guard follows: the statement changes the row only where the caller may.
  const guarded = statements.guarded(sql, parameters, guard);
  return expectOneRow(connection, guarded.sql, guarded.parameters, mapping, entity);
}

/**
 * `writeByKey` without a policy's guard, run at once where the engine can (`Connection.executeNow`): undefined
 * when the row was written, else `writeByKey`'s promise. Throws what `writeByKey` would reject with when the
 * statement ran at once.
 */
export function writeByKeyNow(
  connection: Connection,
  statements: EntityStatements,
  sql: string,
  columns: readonly ColumnMapping[],
  entity: object,
  tenant: string | undefined,
): Promise<void> | undefined {
  const mapping = statements.mapping;
  const parameters = byKeyParameters(statements, columns, entity, tenant);
  const changed = connection.executeNow?.(sql, parameters);
  if (changed === undefined) return expectOneRow(connection, sql, parameters, mapping, entity);
  oneRowChanged(changed, mapping, entity);
  return undefined;
}

/**
 * Whether a write of `kind` sends one statement and runs no application code (no events, no `@Validator`
 * methods, and for a delete no relations to check): then it needs no transaction of its own.
 */
export function isSingleStatement(kind: EntityEventKind, mapping: EntityMapping): boolean {
  return !hasEvents(kind, mapping) && !hasValidatorMethods(mapping) && (kind !== "delete" || mapping.relations.length === 0);
}

/** Who deleted a parent softly, and when: its children's Deleted pair gets the same values. */
export interface SoftDeletion {
  /** The parent's `@DeletedAt` value. */
  readonly at: Date;
  /** The parent's `@DeletedBy` value. */
  readonly by: string;
}

/**
 * Cascades a delete to the children of each `@Relation`, or refuses it while children exist. When the parent
 * is deleted softly (`softly` given) and a child entity has soft delete, its children are deleted softly with
 * the parent's time and user; otherwise they are deleted for real.
 */
export async function applyRelations(
  connection: Connection,
  statements: EntityStatements,
  entity: object,
  softly?: SoftDeletion,
): Promise<void> {
  const mapping = statements.mapping;
  const dialect = statements.dialect;
  const id = mapping.idOf(entity);
  for (const { relation, sql, soft } of statements.relations) {
    if (relation.cascade && soft !== undefined && softly !== undefined) {
      const values = soft.deleteColumns.map((column) => dialect.toDatabase(column === soft.deletedAt ? softly.at : softly.by, column.type));
      await connection.execute(soft.deleteSql, [...values, id]);
    } else if (relation.cascade) {
      await connection.execute(sql, [id]);
    } else {
      const children = Number((await connection.query(sql, [id]))[0][0]);
      if (children > 0) throw new RelationConstraintError(mapping.name, id, relation.table, children);
    }
  }
}

/**
 * Undeletes the children that a soft cascade deleted with the parent: those deleted at the parent's
 * deletion time `deletedAt`, with their Updated pair stamped now.
 */
export async function restoreRelations(
  connection: Connection,
  statements: EntityStatements,
  entity: object,
  deletedAt: Date,
  user: string | undefined,
): Promise<void> {
  const dialect = statements.dialect;
  const id = statements.mapping.idOf(entity);
  const now = new Date();
  for (const { soft } of statements.relations) {
    if (soft === undefined) continue;
    const stamps = soft.undeleteColumns.map((column) => dialect.toDatabase(column.type.kind === "date" ? now : (user ?? ""), column.type));
    await connection.execute(soft.undeleteSql, [...stamps, id, dialect.toDatabase(deletedAt, soft.deletedAt.type)]);
  }
}
