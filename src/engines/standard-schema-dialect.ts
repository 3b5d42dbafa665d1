import type { ColumnType } from "../mapping/column-type.js";
import type { Catalog } from "../sql/catalog.js";
import type { CatalogQuery, SchemaDialect, SchemaLimits, SequenceOptions } from "../sql/schema-dialect.js";

/** The SQL type names of one engine, per column kind; decimals and sized text are written from the type's figures. */
export interface ColumnTypeNames {
  /** An `int32` column, and a `lazy` reference's key. */
  readonly int32: string;
  /** An `int64` column. */
  readonly int64: string;
  /** A `float` column. */
  readonly float: string;
  /** A `boolean` column. */
  readonly boolean: string;
  /** A `date` column. */
  readonly date: string;
  /** A `blob` column. */
  readonly blob: string;
  /** A `string` column without a declared size (a sized one is `VARCHAR(size)`). */
  readonly text: string;
}

/** The type names of standard SQL (and TEXT); an engine's `typeNames` replace those it spells otherwise. */
export const standardTypeNames: ColumnTypeNames = {
  int32: "INTEGER",
  int64: "BIGINT",
  float: "DOUBLE PRECISION",
  boolean: "BOOLEAN",
  date: "TIMESTAMP",
  blob: "BLOB",
  text: "TEXT",
};

/**
 * What the engines' schema dialects share, written once: the standard answers to `SchemaDialect`'s questions
 * (transactional DDL, foreign keys added by ALTER TABLE, NOT NULL columns added to tables that exist,
 * CREATE SEQUENCE, `VARCHAR(size)`, `NUMERIC(p, s)`), and the column type of each kind read from the
 * engine's declared `typeNames`. An engine's schema dialect extends it and overrides only what differs.
 */
export abstract class StandardSchemaDialect implements SchemaDialect {
  /** @inheritdoc */
  abstract readonly limits: SchemaLimits;
  /** @inheritdoc */
  abstract readonly maxIdentifierLength: number;
  /** The engine's SQL type names. */
  protected readonly typeNames: ColumnTypeNames = standardTypeNames;
  /** @inheritdoc */
  readonly transactionalDdl: boolean = true;
  /** @inheritdoc */
  readonly inlineForeignKeys: boolean = false;
  /** @inheritdoc */
  readonly addsNotNullColumns: boolean = true;
  /** @inheritdoc */
  readonly hasSequences: boolean = true;
  /** @inheritdoc */
  readonly galeraSequences: boolean = false;

  /** @inheritdoc */
  columnType(type: ColumnType<unknown>): string {
    switch (type.kind) {
      case "decimal":
        return this.decimalType(type.precision, type.scale);
      case "string":
        return type.size === undefined ? this.typeNames.text : `VARCHAR(${type.size})`;
      case "lazy":
        return this.typeNames.int32;
      default:
        return this.typeNames[type.kind];
    }
  }

  /** @inheritdoc */
  createSequence(quotedName: string, options: SequenceOptions): string {
    return `CREATE SEQUENCE ${quotedName}${(options.start ?? 1) > 1 ? ` START WITH ${options.start}` : ""}`;
  }

  /** @inheritdoc */
  abstract readCatalog(query: CatalogQuery): Promise<Catalog>;

  /** The SQL type of a decimal column of `precision` digits, `scale` of them after the point. */
  protected decimalType(precision: number | undefined, scale: number | undefined): string {
    return `NUMERIC(${precision}, ${scale})`;
  }
}
