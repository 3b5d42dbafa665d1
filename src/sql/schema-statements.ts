import { createHash } from "node:crypto";
import type { ColumnType } from "../mapping/column-type.js";
import type { Dialect } from "./dialect.js";
import type { SchemaDialect, SequenceOptions } from "./schema-dialect.js";

/** One column to create. */
export interface ColumnDefinition {
  /** The column name as the mapping declares it. */
  readonly name: string;
  /** The declared type. */
  readonly type: ColumnType<unknown>;
  /** Whether the column accepts NULL (NOT NULL otherwise). */
  readonly nullable: boolean;
}

/** One table to create. */
export interface TableDefinition {
  /** The table name as the mapping declares it. */
  readonly name: string;
  /** The columns, in declaration order. */
  readonly columns: readonly ColumnDefinition[];
  /** The primary key column's name. */
  readonly primaryKey: string;
}

/** A foreign key from a column of one table to the primary key of another. */
export interface ForeignKeyDefinition {
  /** The table holding the reference. */
  readonly table: string;
  /** The referring column. */
  readonly column: string;
  /** The referenced table. */
  readonly referencedTable: string;
  /** The referenced column (its primary key). */
  readonly referencedColumn: string;
}

/** An index on one column. */
export interface IndexDefinition {
  /** The indexed table. */
  readonly table: string;
  /** The indexed column. */
  readonly column: string;
}

/**
 * The DDL text Tenon writes, once for every engine: plain statements without a trailing semicolon, names
 * quoted and folded by the dialect, types chosen by the engine's `SchemaDialect`.
 */
export class SchemaStatements {
  readonly #dialect: Dialect;
  readonly #schema: SchemaDialect;

  /** @param dialect the engine's dialect. @param schema its schema dialect. */
  constructor(dialect: Dialect, schema: SchemaDialect) {
    this.#dialect = dialect;
    this.#schema = schema;
  }

  /** The column as CREATE TABLE and ADD COLUMN write it: name, type and NOT NULL unless nullable. */
  column(column: ColumnDefinition, notNull = !column.nullable): string {
    return `${this.#q(column.name)} ${this.#schema.columnType(column.type)}${notNull ? " NOT NULL" : ""}`;
  }

  /** CREATE TABLE with its columns, its primary key and, where the engine needs them inline, its foreign keys. */
  createTable(table: TableDefinition, inlineForeignKeys: readonly ForeignKeyDefinition[] = []): string {
    const lines = table.columns.map((column) => `  ${this.column(column)}`);
    lines.push(`  PRIMARY KEY (${this.#q(table.primaryKey)})`);
    for (const key of inlineForeignKeys) lines.push(`  ${this.#foreignKeyClause(key)}`);
    return `CREATE TABLE ${this.#q(table.name)} (\n${lines.join(",\n")}\n)`;
  }

  /** ALTER TABLE ... ADD COLUMN. */
  addColumn(table: string, column: ColumnDefinition, notNull = !column.nullable): string {
    return `ALTER TABLE ${this.#q(table)} ADD COLUMN ${this.column(column, notNull)}`;
  }

  /** ALTER TABLE ... ADD CONSTRAINT ... FOREIGN KEY. */
  addForeignKey(key: ForeignKeyDefinition): string {
    return `ALTER TABLE ${this.#q(key.table)} ADD ${this.#foreignKeyClause(key)}`;
  }

  /** CREATE INDEX IX_<table>_<column>. */
  createIndex(index: IndexDefinition): string {
    return `CREATE INDEX ${this.#q(this.indexName(index))} ON ${this.#q(index.table)} (${this.#q(index.column)})`;
  }

  /** CREATE SEQUENCE in the engine's form. */
  createSequence(name: string, options: SequenceOptions): string {
    return this.#schema.createSequence(this.#q(name), options);
  }

  /** SELECT MAX(key) FROM table: where a new sequence must start. */
  highestKey(table: string, keyColumn: string): string {
    return `SELECT MAX(${this.#q(keyColumn)}) FROM ${this.#q(table)}`;
  }

  /** The name Tenon gives the index of a column. */
  indexName(index: IndexDefinition): string {
    return this.#name(`IX_${index.table}_${index.column}`);
  }

  /** The name Tenon gives a foreign key. */
  foreignKeyName(key: ForeignKeyDefinition): string {
    return this.#name(`FK_${key.table}_${key.column}`);
  }

  #foreignKeyClause(key: ForeignKeyDefinition): string {
    return `CONSTRAINT ${this.#q(this.foreignKeyName(key))} FOREIGN KEY (${this.#q(key.column)}) REFERENCES ${this.#q(key.referencedTable)} (${this.#q(key.referencedColumn)})`;
  }

  /** A generated name, shortened with a hash of the whole when it exceeds what the engine accepts. */
  #name(name: string): string {
    const limit = this.#schema.maxIdentifierLength;
    if (name.length <= limit) return name;
    const hash = createHash("sha256").update(name).digest("hex").slice(0, 8);
    return `${name.slice(0, limit - 9)}_${hash}`;
  }

  #q(identifier: string): string {
    return this.#dialect.quoteIdentifier(identifier);
  }
}
