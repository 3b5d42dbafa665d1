import { SchemaError } from "../errors.js";
import type { ColumnType, EntityClass } from "../mapping/column-type.js";
import { type ColumnMapping, EntityMapping } from "../mapping/entity-mapping.js";
import type { Dialect } from "../sql/dialect.js";
import type { SchemaDialect } from "../sql/schema-dialect.js";
import type { ColumnDefinition, ForeignKeyDefinition, IndexDefinition, TableDefinition } from "../sql/schema-statements.js";
import { SchemaMessages } from "./schema-messages.js";

/** A column of the schema, with the entity and property that map it (the first, when several do). */
export interface ModelColumn extends ColumnDefinition {
  /** The entity class name. */
  readonly entity: string;
  /** The property mapped to it. */
  readonly property: string;
}

/** A table of the schema: the union of the own columns of every entity that maps it. */
export interface ModelTable extends TableDefinition {
  /** The columns. */
  readonly columns: readonly ModelColumn[];
  /** The names of the entities that map it, comma-separated, for reports. */
  readonly entity: string;
}

/** A sequence of the schema and the key it feeds. */
export interface ModelSequence {
  /** The sequence name. */
  readonly name: string;
  /** The entity that names it. */
  readonly entity: string;
  /** The table whose keys it gives. */
  readonly table: string;
  /** That table's key column. */
  readonly keyColumn: string;
}

/** An index or foreign key of the schema, with the entity it is reported under (the table's). */
export interface ModelReference extends IndexDefinition {
  /** The entity that maps the indexed table. */
  readonly entity: string;
  /** The foreign key on the column, when the referenced table is part of the schema too. */
  readonly foreignKey: ForeignKeyDefinition | undefined;
}

/** The schema the mapping implies: what `Schema.create` writes and `Schema.diff` compares. */
export interface SchemaModel {
  /** The tables, in the order of the entities given. */
  readonly tables: readonly ModelTable[];
  /** The sequences. */
  readonly sequences: readonly ModelSequence[];
  /** One index per referring column (from `Lazy` columns, `@Relation` and `@DetailColumn`), with its foreign key. */
  readonly references: readonly ModelReference[];
}

interface TableDraft {
  readonly name: string;
  readonly entities: string[];
  readonly columns: ModelColumn[];
  primaryKey: string;
  keyEntity: string;
}

/**
 * Builds the schema of a set of entities for one engine. Join entities (`@Join`) read tables that other
 * entities own and add nothing; entities that share a table must declare its columns alike. Every type
 * is checked against the engine's limits, so a mapping the engine cannot store is a `SchemaError` here,
 * before any statement runs.
 */
export function buildSchemaModel(
  dialect: Dialect,
  schema: SchemaDialect,
  entities: readonly EntityClass[],
  foreignKeys = true,
): SchemaModel {
  const mappings = entities.map((entity) => EntityMapping.of(entity)).filter((mapping) => !mapping.isJoinEntity);
  const drafts = new Map<string, TableDraft>();
  const sequences: ModelSequence[] = [];
  for (const mapping of mappings) {
    const key = mapping.tableName.toLowerCase();
    let draft = drafts.get(key);
    if (draft === undefined) {
      draft = { name: mapping.tableName, entities: [], columns: [], primaryKey: mapping.primaryKey.columnName, keyEntity: mapping.name };
      drafts.set(key, draft);
    } else if (draft.primaryKey.toLowerCase() !== mapping.primaryKey.columnName.toLowerCase()) {
      throw new SchemaError(
        mapping.name,
        SchemaMessages.conflictingKey(draft.name, draft.keyEntity, draft.primaryKey, mapping.name, mapping.primaryKey.columnName),
      );
    }
    draft.entities.push(mapping.name);
    for (const column of mapping.ownColumns) {
      checkExpressible(dialect, schema, `${mapping.name}.${column.property}`, mapping.name, column.type);
      const known = draft.columns.find((each) => each.name.toLowerCase() === column.columnName.toLowerCase());
      if (known === undefined) {
        draft.columns.push({
          name: column.columnName,
          type: column.type,
          nullable: acceptsNull(column),
          entity: mapping.name,
          property: column.property,
        });
      } else if (!sameType(known.type, column.type) || known.nullable !== acceptsNull(column)) {
        throw new SchemaError(
          mapping.name,
          SchemaMessages.conflictingColumn(
            draft.name,
            column.columnName,
            `${known.entity}.${known.property}`,
            describeType(schema, known.type, known.nullable),
            `${mapping.name}.${column.property}`,
            describeType(schema, column.type, acceptsNull(column)),
          ),
        );
      }
    }
    if (mapping.sequenceName !== undefined && !sequences.some((each) => each.name.toLowerCase() === mapping.sequenceName?.toLowerCase()))
      sequences.push({
        name: mapping.sequenceName,
        entity: mapping.name,
        table: mapping.tableName,
        keyColumn: mapping.primaryKey.columnName,
      });
  }
  const tables: ModelTable[] = [...drafts.values()].map((draft) => ({
    name: draft.name,
    columns: draft.columns,
    primaryKey: draft.primaryKey,
    entity: draft.entities.join(", "),
  }));
  return { tables, sequences, references: referencesOf(mappings, tables, foreignKeys) };
}

/** The schema with one of Tenon's own tables added (reported under the table's own name), unless an entity maps it already. */
export function withFrameworkTable(model: SchemaModel, table: TableDefinition): SchemaModel {
  if (model.tables.some((each) => each.name.toLowerCase() === table.name.toLowerCase())) return model;
  const columns = table.columns.map((column) => ({ ...column, entity: table.name, property: column.name }));
  return { ...model, tables: [...model.tables, { ...table, columns, entity: table.name }] };
}

/** The SQL type and nullability of a column as the engine writes it: `VARCHAR(100) NOT NULL`. */
export function describeType(schema: SchemaDialect, type: ColumnType<unknown>, nullable: boolean): string {
  return `${schema.columnType(type)} ${nullable ? "NULL" : "NOT NULL"}`;
}

/**
 * Whether the column must accept NULL: a nullable type, or a change-tracking column that INSERT leaves out
 * (the Updated and Deleted pairs are written only by update and delete), whatever type it declares.
 */
function acceptsNull(column: ColumnMapping): boolean {
  return column.type.nullable || (column.auditRole !== undefined && !column.auditRole.startsWith("created"));
}

function referencesOf(mappings: readonly EntityMapping[], tables: readonly ModelTable[], foreignKeys: boolean): ModelReference[] {
  const tableNamed = (name: string): ModelTable | undefined => tables.find((table) => table.name.toLowerCase() === name.toLowerCase());
  const references = new Map<string, ModelReference>();
  const add = (table: ModelTable, column: string, referenced: ModelTable | undefined, referencedColumn: string | undefined): void => {
    const key = `${table.name.toLowerCase()}.${column.toLowerCase()}`;
    if (references.has(key) || column.toLowerCase() === table.primaryKey.toLowerCase()) return;
    const foreignKey =
      foreignKeys && referenced !== undefined && referencedColumn?.toLowerCase() === referenced.primaryKey.toLowerCase()
        ? { table: table.name, column, referencedTable: referenced.name, referencedColumn: referenced.primaryKey }
        : undefined;
    references.set(key, { table: table.name, column, entity: table.entity, foreignKey });
  };
  const mapsColumn = (table: ModelTable, column: string): boolean =>
    table.columns.some((each) => each.name.toLowerCase() === column.toLowerCase());
  for (const mapping of mappings) {
    const own = tableNamed(mapping.tableName) as ModelTable;
    for (const column of mapping.ownColumns) {
      const target = column.type.kind === "lazy" ? column.type.target?.() : undefined;
      if (target === undefined) continue;
      const referenced = tableNamed(EntityMapping.of(target).tableName);
      add(own, column.columnName, referenced, referenced?.primaryKey);
    }
    for (const relation of mapping.relations) {
      const child = tableNamed(relation.table);
      if (child === undefined) continue;
      if (!mapsColumn(child, relation.foreignKey))
        throw new SchemaError(mapping.name, SchemaMessages.relationColumnUnmapped(mapping.name, relation.table, relation.foreignKey));
      add(child, relation.foreignKey, own, mapping.primaryKey.columnName);
    }
    for (const detail of mapping.details) {
      const child = tableNamed(EntityMapping.of(detail.target()).tableName);
      if (child === undefined) continue;
      if (!mapsColumn(child, detail.childForeignKey))
        throw new SchemaError(
          mapping.name,
          SchemaMessages.detailColumnUnmapped(mapping.name, detail.property, child.name, detail.childForeignKey),
        );
      add(child, detail.childForeignKey, own, detail.localColumn.columnName);
    }
  }
  return [...references.values()];
}

function checkExpressible(dialect: Dialect, schema: SchemaDialect, where: string, entity: string, type: ColumnType<unknown>): void {
  const limits = schema.limits;
  const isCount = (value: unknown, min: number, max: number): boolean =>
    typeof value === "number" && Number.isInteger(value) && value >= min && value <= max;
  if (type.kind === "decimal") {
    if (!isCount(type.precision, 1, limits.decimalPrecision))
      throw new SchemaError(entity, SchemaMessages.decimalDigits(where, dialect.name, type.precision, type.scale, limits.decimalPrecision));
    if (!isCount(type.scale, 0, Math.min(type.precision as number, limits.decimalScale)))
      throw new SchemaError(entity, SchemaMessages.decimalScale(where, dialect.name, type.precision, type.scale, limits.decimalScale));
  } else if (type.kind === "string" && type.size !== undefined && !isCount(type.size, 1, limits.varcharLength)) {
    throw new SchemaError(entity, SchemaMessages.varcharSize(where, dialect.name, type.size, limits.varcharLength));
  }
}

function sameType(a: ColumnType<unknown>, b: ColumnType<unknown>): boolean {
  const kind = (type: ColumnType<unknown>): string => (type.kind === "lazy" ? "int32" : type.kind);
  return kind(a) === kind(b) && a.size === b.size && a.precision === b.precision && a.scale === b.scale;
}
