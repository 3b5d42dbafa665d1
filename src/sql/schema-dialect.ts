import type { ColumnType } from "../mapping/column-type.js";
import type { Catalog } from "./catalog.js";

/** How far an engine's column types reach: a mapping beyond them cannot be expressed on that engine. */
export interface SchemaLimits {
  /** The largest precision (total digits) of an exact decimal. */
  readonly decimalPrecision: number;
  /** The largest scale (digits after the point) of an exact decimal. */
  readonly decimalScale: number;
  /** The largest declared length of a `varchar(n)` column. */
  readonly varcharLength: number;
}

/** How sequences are created. */
export interface SequenceOptions {
  /** The first value handed out (default 1); set above the highest existing key when a table already has rows. */
  readonly start?: number;
  /**
   * MariaDB on a Galera cluster: `INCREMENT BY 0 NOCACHE`, so that every node follows its own
   * `auto_increment_increment`/`auto_increment_offset` and no two nodes hand out the same key.
   */
  readonly galera?: boolean;
}

/** Runs one catalogue query on the database being read and answers its rows as arrays. */
export type CatalogQuery = (sql: string, parameters?: readonly unknown[]) => Promise<unknown[][]>;

/**
 * What differs between engines when Tenon writes or reads a schema (`Schema.create`, `Schema.diff`): the SQL
 * type of each column type, the engine's limits, the DDL forms that differ and the catalogue reader. Each
 * engine folder implements it; `Dialect.schema` answers it.
 */
export interface SchemaDialect {
  /** The SQL type of a column type, assumed within `limits`: `VARCHAR(100)`, `NUMERIC(18, 2)`, `TIMESTAMPTZ`. */
  columnType(type: ColumnType<unknown>): string;
  /** The limits of the engine's types. */
  readonly limits: SchemaLimits;
  /** Whether DDL runs inside a transaction, so that a failed `apply` leaves nothing behind. */
  readonly transactionalDdl: boolean;
  /** Whether foreign keys must be declared inside CREATE TABLE (SQLite cannot add one to an existing table). */
  readonly inlineForeignKeys: boolean;
  /** Whether `ALTER TABLE ... ADD COLUMN ... NOT NULL` without a default is accepted on a table that exists. */
  readonly addsNotNullColumns: boolean;
  /** Whether the engine has sequences (CREATE SEQUENCE). */
  readonly hasSequences: boolean;
  /**
   * Where keys come from a table of Tenon's own instead of sequences (SQLite's `tenon_keys`): its name and the
   * statement that creates it, written wherever an entity of the schema has a `@Sequence`.
   */
  readonly keyTable?: { readonly name: string; readonly create: string };
  /** Whether `SequenceOptions.galera` has a form on this engine (MariaDB). */
  readonly galeraSequences: boolean;
  /** The longest identifier the engine accepts. */
  readonly maxIdentifierLength: number;
  /** The CREATE SEQUENCE statement of an already quoted name. */
  createSequence(quotedName: string, options: SequenceOptions): string;
  /** Reads the tables, columns, indexes and sequences of the current schema or database. */
  readCatalog(query: CatalogQuery): Promise<Catalog>;
}
