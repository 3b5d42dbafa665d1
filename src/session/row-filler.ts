import { generateFunction } from "../generated-code.js";
import type { ColumnMapping } from "../mapping/entity-mapping.js";
import { Lazy } from "../mapping/lazy.js";
import type { Dialect } from "../sql/dialect.js";

/** Writes the values of a row (in the order of the columns it was built for) into an entity's fields, converted by its dialect. */
export type RowFiller = (entity: object, row: readonly unknown[]) => void;

/**
 * The row filler of an entity class's columns on one dialect. Where the platform allows code generation it is
 * a function built for the class (one statement per column), which V8 keeps monomorphic: the generic loop calls
 * a different setter at the same call site for every column, so none can be inlined, and each column's value
 * is converted by a function made for its type (`Dialect.fromDatabaseOf`). The effect on the entity is the
 * generic loop's (tested). Build it once per class and dialect: each call compiles.
 */
export function rowFillerOf(columns: readonly ColumnMapping[], dialect: Dialect): RowFiller {
  return compileRowFiller(columns, dialect) ?? ((entity, row) => fillRow(columns, entity, row, dialect));
}

/** The generic row filler: the definition the compiled one follows. @internal */
export function fillRow(columns: readonly ColumnMapping[], entity: object, row: readonly unknown[], dialect: Dialect): void {
  for (let i = 0; i < columns.length; i++) {
    const column = columns[i];
    const value = dialect.fromDatabase(row[i], column.type);
    if (column.type.kind === "lazy") setReference(column, entity, value);
    else column.set(entity, filledValue(column, value));
  }
}

/**
 * What a field takes for a value read from its column: the value, or for NULL in a column whose type is not
 * nullable, the type's empty value.
 */
export function filledValue(column: ColumnMapping, value: unknown): unknown {
  return value === null && !column.type.nullable ? emptyValue(column) : value;
}

/**
 * Leaves in a field written to its column what filling it from the row would: NULL (null or undefined) as
 * `filledValue` makes it, and a number's zero without its sign, as a row holds it. For a column whose values read
 * back as written (`Dialect.readsBackAsWritten`).
 */
export function settleAsRead(column: ColumnMapping, entity: object): void {
  const value = column.get(entity);
  if (value === null || value === undefined) column.set(entity, filledValue(column, null));
  else if (value === 0) column.set(entity, 0);
}

/**
 * Builds `(entity, row) => { set0(entity, read0(row[0])); ... }`, where `read<i>` is the dialect's conversion
 * of column i's type. Nothing of the mapping but indexes enters the text. Undefined where the platform refuses
 * code generation (`--disallow-code-generation-from-strings`), which leaves the generic loop in place.
 * @internal
 */
export function compileRowFiller(columns: readonly ColumnMapping[], dialect: Dialect): RowFiller | undefined {
  const parameters: string[] = ["setReference", "emptyValue"];
  const values: unknown[] = [setReference, emptyValue];
  const statements: string[] = [];
  columns.forEach((column, i) => {
    parameters.push(`column${i}`, `read${i}`, `set${i}`);
    values.push(column, converterOf(dialect, column), column.set);
    const value = `read${i}(row[${i}])`;
    if (column.type.kind === "lazy") statements.push(`setReference(column${i}, entity, ${value});`);
    else if (column.type.nullable) statements.push(`set${i}(entity, ${value});`);
    else statements.push(`value = ${value};\n    set${i}(entity, value === null ? emptyValue(column${i}) : value);`);
  });
  return generateFunction<RowFiller>(
    parameters,
    values,
    `return function fillRow(entity, row) {\n    let value;\n    ${statements.join("\n    ")}\n};`,
  );
}

/** The dialect's conversion of a column's values: its own per type, or `fromDatabase` with the type. */
export function converterOf(dialect: Dialect, column: ColumnMapping): (value: unknown) => unknown {
  const type = column.type;
  return dialect.fromDatabaseOf?.(type) ?? ((value) => dialect.fromDatabase(value, type));
}

/** A reference column keeps its `Lazy` (a new one when the field holds none) and takes the key read. */
function setReference(column: ColumnMapping, entity: object, value: unknown): void {
  const current = column.get(entity);
  const lazy = current instanceof Lazy ? current : new Lazy();
  lazy.id = value as number | null;
  if (lazy !== current) column.set(entity, lazy);
}

/**
 * What a field whose column type is not nullable gets when the row holds NULL (an `UpdatedBy` string before
 * the first update, say): the type's empty value, as the Delphi original's non-nullable types do.
 */
export function emptyValue(column: ColumnMapping): unknown {
  switch (column.type.kind) {
    case "string":
      return "";
    case "decimal":
      return "0";
    case "int64":
      return 0n;
    case "boolean":
      return false;
    case "blob":
      return new Uint8Array(0);
    case "date":
      return null;
    default:
      return 0;
  }
}
