import "./symbol-metadata.js";
import { annotateClass } from "./metadata-store.js";
import { MappingKey } from "./mapping-keys.js";

/** A class decorator of the mapping layer. */
export type EntityDecorator = (value: abstract new () => object, context: ClassDecoratorContext) => void;

/** Maps the class to a table. Required on every entity. */
export function Table(name: string): EntityDecorator {
  return (_value, context) => annotateClass(context, MappingKey.table, name);
}

/** Names the sequence that gives new primary keys. It must already exist; Tenon never creates it. */
export function Sequence(name: string): EntityDecorator {
  return (_value, context) => annotateClass(context, MappingKey.sequence, name);
}

/** A child table that refers to this entity. Several may be applied. */
export interface RelationDeclaration {
  /** The child table. */
  readonly table: string;
  /** The child column holding this entity's primary key. */
  readonly foreignKey: string;
  /** True deletes the children with the parent; false refuses the delete while children exist. */
  readonly cascade: boolean;
}

/**
 * Declares a child relationship: `cascade` true deletes the children first; false makes a delete of a
 * parent with children fail with `TenonError`, deleting nothing.
 */
export function Relation(table: string, foreignKey: string, cascade: boolean): EntityDecorator {
  const declaration: RelationDeclaration = { table, foreignKey, cascade };
  return (_value, context) => annotateClass(context, MappingKey.relation, declaration);
}

/** A fixed condition added to every query of the entity; parameters are written `:name`. */
export function WhereClause(sql: string): EntityDecorator {
  return (_value, context) => annotateClass(context, MappingKey.whereClause, sql);
}

/** The constant types a `@WhereClauseParameter` accepts (String, Integer, Int64, Double, Boolean, Date). */
export type WhereClauseConstant = string | number | bigint | boolean | Date;

/**
 * A constant parameter of the `@WhereClause`. For a decimal column pass a number
 * (on SQLite the integer scaled by 10^scale that the column stores: docs/engines.md).
 */
export function WhereClauseParameter(name: string, value: WhereClauseConstant): EntityDecorator {
  return (_value, context) => annotateClass(context, MappingKey.whereClauseParameter, { name, value });
}

/** The kinds of SQL join. */
export enum JoinKind {
  /** INNER JOIN */
  Inner = "INNER",
  /** LEFT JOIN */
  Left = "LEFT",
  /** RIGHT JOIN */
  Right = "RIGHT",
}

/** One `@Join` as declared. */
export interface JoinDeclaration {
  /** The kind of join. */
  readonly kind: JoinKind;
  /** The joined table. */
  readonly table: string;
  /** The alias the joined columns name; the table name for the simple overload. */
  readonly alias: string;
  /** The table or alias the source column belongs to; undefined for the entity's own table. */
  readonly sourceTableOrAlias: string | undefined;
  /** The column of the source table. */
  readonly sourceColumn: string;
  /** The column of the joined table it must equal. */
  readonly targetColumn: string;
}

/** Simple join: `table.targetColumn = <entity table>.sourceColumn`; joined columns use the table name as alias. */
export function Join(kind: JoinKind, table: string, sourceColumn: string, targetColumn: string): EntityDecorator;
/** Join with an alias (required when the same table is joined more than once). */
export function Join(kind: JoinKind, table: string, alias: string, sourceColumn: string, targetColumn: string): EntityDecorator;
/** Chained join: the source column belongs to a previous join's table or alias. */
export function Join(
  kind: JoinKind,
  table: string,
  alias: string,
  sourceTableOrAlias: string,
  sourceColumn: string,
  targetColumn: string,
): EntityDecorator;
export function Join(kind: JoinKind, table: string, ...rest: string[]): EntityDecorator {
  let declaration: JoinDeclaration;
  if (rest.length === 2)
    declaration = { kind, table, alias: table, sourceTableOrAlias: undefined, sourceColumn: rest[0], targetColumn: rest[1] };
  else if (rest.length === 3)
    declaration = { kind, table, alias: rest[0], sourceTableOrAlias: undefined, sourceColumn: rest[1], targetColumn: rest[2] };
  else if (rest.length === 4)
    declaration = { kind, table, alias: rest[0], sourceTableOrAlias: rest[1], sourceColumn: rest[2], targetColumn: rest[3] };
  else throw new TypeError(`@Join(${kind}, ${table}) takes 4, 5 or 6 arguments.`);
  return (_value, context) => annotateClass(context, MappingKey.join, declaration);
}
