import type { SchemaDifference } from "../errors.js";
import type { Catalog } from "../sql/catalog.js";
import type { SchemaDialect, SequenceOptions } from "../sql/schema-dialect.js";
import type { SchemaStatements } from "../sql/schema-statements.js";
import { SchemaMessages } from "./schema-messages.js";
import { describeType, type SchemaModel } from "./schema-model.js";

/** The differences between a schema and a catalogue, and the additive statements that close them, in order. */
export interface SchemaPlan {
  /** Every difference, table by table, in the order of the entities. */
  readonly differences: readonly SchemaDifference[];
  /** CREATE TABLE, ADD COLUMN, CREATE SEQUENCE, CREATE INDEX and foreign keys, in an order that runs. */
  readonly statements: readonly string[];
}

/** What the planner needs besides the schema and the catalogue. */
export interface PlanContext {
  /** The engine's schema dialect. */
  readonly schema: SchemaDialect;
  /** The engine's DDL writer. */
  readonly statements: SchemaStatements;
  /** Sequence options (Galera). */
  readonly sequenceOptions: SequenceOptions;
  /** The highest key of each existing table whose sequence is missing, by sequence name: the sequence starts above it. */
  readonly highestKeys: ReadonlyMap<string, number>;
}

/**
 * Compares the schema the mapping implies with a catalogue and plans only additive statements: missing
 * tables, columns, sequences and indexes are created; a column whose type, size or nullability differs is
 * reported and left alone. Against an empty catalogue this is the whole schema (`Schema.create`).
 */
export function planSchema(model: SchemaModel, catalog: Catalog, context: PlanContext): SchemaPlan {
  const { schema, statements } = context;
  const differences: SchemaDifference[] = [];
  const creates: string[] = [];
  const additions: string[] = [];
  const sequences: string[] = [];
  const indexes: string[] = [];
  const foreignKeys: string[] = [];
  const created = new Set<string>();
  for (const table of model.tables) {
    const live = catalog.table(table.name);
    if (live === undefined) {
      const inline = schema.inlineForeignKeys
        ? model.references
            .filter((each) => each.table === table.name)
            .flatMap((each) => (each.foreignKey === undefined ? [] : [each.foreignKey]))
        : [];
      const statement = statements.createTable(table, inline);
      creates.push(statement);
      created.add(table.name);
      differences.push({
        kind: "missingTable",
        entity: table.entity,
        table: table.name,
        statement,
        message: SchemaMessages.missingTable(table.entity, table.name),
      });
      continue;
    }
    for (const column of table.columns) {
      const where = `${column.entity}.${column.property}`;
      const common = { entity: column.entity, table: table.name, column: column.name, property: column.property };
      const expected = describeType(schema, column.type, column.nullable);
      const actual = live.column(column.name);
      if (actual === undefined) {
        const acceptsNull = !column.nullable && !schema.addsNotNullColumns;
        const statement = statements.addColumn(table.name, column, !column.nullable && !acceptsNull);
        additions.push(statement);
        const message = acceptsNull
          ? SchemaMessages.addedAcceptingNull(where, table.name, column.name, expected)
          : SchemaMessages.missingColumn(where, table.name, column.name, expected);
        differences.push({ kind: "missingColumn", ...common, expected, statement, message });
        continue;
      }
      const expectedType = schema.columnType(column.type);
      const actualDescription = `${actual.type} ${actual.nullable ? "NULL" : "NOT NULL"}`;
      if (actual.type !== expectedType) {
        const sameBase = baseType(actual.type) === baseType(expectedType);
        differences.push({
          kind: sameBase ? "columnSize" : "columnType",
          ...common,
          expected,
          actual: actualDescription,
          message: (sameBase ? SchemaMessages.columnSize : SchemaMessages.columnType)(
            where,
            table.name,
            column.name,
            actualDescription,
            expected,
          ),
        });
      } else if (actual.nullable !== column.nullable) {
        differences.push({
          kind: "columnNullability",
          ...common,
          expected,
          actual: actualDescription,
          message: SchemaMessages.columnNullability(where, table.name, column.name, actualDescription, expected),
        });
      }
    }
  }
  if (schema.hasSequences) {
    for (const sequence of model.sequences) {
      if (catalog.hasSequence(sequence.name)) continue;
      const start = (context.highestKeys.get(sequence.name) ?? 0) + 1;
      const statement = statements.createSequence(sequence.name, { ...context.sequenceOptions, start });
      sequences.push(statement);
      differences.push({
        kind: "missingSequence",
        entity: sequence.entity,
        table: sequence.table,
        sequence: sequence.name,
        statement,
        message: SchemaMessages.missingSequence(sequence.entity, sequence.name),
      });
    }
  }
  const keyTable = schema.keyTable;
  if (keyTable !== undefined && model.sequences.length > 0 && catalog.table(keyTable.name) === undefined) {
    const entity = model.sequences.map((each) => each.entity).join(", ");
    sequences.push(keyTable.create);
    differences.push({
      kind: "missingSequence",
      entity,
      table: keyTable.name,
      sequence: keyTable.name,
      statement: keyTable.create,
      message: SchemaMessages.missingKeyTable(entity, keyTable.name),
    });
  }
  for (const reference of model.references) {
    const isNew = created.has(reference.table);
    if (isNew || catalog.table(reference.table)?.isIndexed(reference.column) !== true) {
      const statement = statements.createIndex(reference);
      indexes.push(statement);
      if (!isNew) {
        differences.push({
          kind: "missingIndex",
          entity: reference.entity,
          table: reference.table,
          column: reference.column,
          statement,
          message: SchemaMessages.missingIndex(reference.entity, reference.table, reference.column),
        });
      }
    }
    // A foreign key comes with its table: adding one to a table with rows could fail on rows that break it.
    if (isNew && !schema.inlineForeignKeys && reference.foreignKey !== undefined)
      foreignKeys.push(statements.addForeignKey(reference.foreignKey));
  }
  // Indexes before foreign keys: MariaDB then uses Tenon's index for the key instead of creating a second one.
  return { differences, statements: [...creates, ...additions, ...sequences, ...indexes, ...foreignKeys] };
}

/** `VARCHAR(100)` is `VARCHAR`: the same type in another size. */
function baseType(type: string): string {
  const paren = type.indexOf("(");
  return paren < 0 ? type : type.slice(0, paren);
}
