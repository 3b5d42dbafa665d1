import { generateFunction } from "../generated-code.js";
import type { ColumnMapping } from "../mapping/entity-mapping.js";
import { Lazy } from "../mapping/lazy.js";
import type { Dialect } from "../sql/dialect.js";

/** Writes the values of a row (in `mapping.columns` order) into an entity's fields, converted by the dialect. */
export type RowFiller = (entity: object, row: readonly unknown[], dialect: Dialect) => void;

/**
 * The row filler of an entity class's columns. Where the platform allows code generation it is a function
 * built for the class (one statement per column), which V8 keeps monomorphic: the generic loop calls a
 * different setter at the same call site for every column, so none can be inlined. The effect on the entity
 * is the generic loop's (tested). Build it once per class: each call compiles.
 */
export function rowFillerOf(columns: readonly ColumnMapping[]): RowFiller {
  return compileRowFiller(columns) ?? ((entity, row, dialect) => fillRow(columns, entity, row, dialect));
}

/** The generic row filler: the definition the compiled one follows. @internal */
export function fillRow(columns: readonly ColumnMapping[], entity: object, row: readonly unknown[], dialect: Dialect): void {
  for (let i = 0; i < columns.length; i++) {
    const column = columns[i];
    const value = dialect.fromDatabase(row[i], column.type);
    if (column.type.kind === "lazy") setReference(column, entity, value);
    else column.set(entity, value === null && !column.type.nullable ? emptyValue(column) : value);
  }
}

/**
 * Builds `(entity, row, dialect) => { set0(entity, dialect.fromDatabase(row[0], type0)); ... }`. Nothing of
 * the mapping but indexes enters the text. Undefined where the platform refuses code generation
 * (`--disallow-code-generation-from-strings`), which leaves the generic loop in place.
 * @internal
 */
export function compileRowFiller(columns: readonly ColumnMapping[]): RowFiller | undefined {
  const parameters: string[] = ["setReference", "emptyValue"];
  const values: unknown[] = [setReference, emptyValue];
  const statements: string[] = [];
  columns.forEach((column, i) => {
    parameters.push(`column${i}`, `type${i}`, `set${i}`);
    values.push(column, column.type, column.set);
    const value = `dialect.fromDatabase(row[${i}], type${i})`;
    if (column.type.kind === "lazy") statements.push(`setReference(column${i}, entity, ${value});`);
    else if (column.type.nullable) statements.push(`set${i}(entity, ${value});`);
    else statements.push(`value = ${value};\n    set${i}(entity, value === null ? emptyValue(column${i}) : value);`);
  });
  return generateFunction<RowFiller>(
    parameters,
    values,
    `return function fillRow(entity, row, dialect) {\n    let value;\n    ${statements.join("\n    ")}\n};`,
  );
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
