import { CatalogSnapshot, canonicalTypeName, lowerCaseFolding, type Catalog } from "../../sql/catalog.js";
import type { CatalogQuery } from "../../sql/schema-dialect.js";
import { type ColumnTypeNames, StandardSchemaDialect, standardTypeNames } from "../standard-schema-dialect.js";

/** The namespace Tenon's unqualified names resolve in: the first schema of `search_path` that exists. */
const currentNamespace = "(SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = current_schema())";

const columnsQuery = `SELECT c.relname, a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE c.relnamespace = ${currentNamespace} AND c.relkind IN ('r', 'p')
ORDER BY c.relname, a.attnum`;

const indexesQuery = `SELECT c.relname, a.attname
FROM pg_catalog.pg_index i
JOIN pg_catalog.pg_class c ON c.oid = i.indrelid
JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]
WHERE c.relnamespace = ${currentNamespace}`;

const sequencesQuery = `SELECT relname FROM pg_catalog.pg_class WHERE relkind = 'S' AND relnamespace = ${currentNamespace}`;

/** `format_type` spellings that Tenon's DDL writes shorter. */
const shortNames: readonly [RegExp, string][] = [
  [/^CHARACTER VARYING/, "VARCHAR"],
  [/^CHARACTER\b/, "CHAR"],
  [/^TIMESTAMP(\(\d+\))? WITH TIME ZONE$/, "TIMESTAMPTZ$1"],
  [/^TIMESTAMP(\(\d+\))? WITHOUT TIME ZONE$/, "TIMESTAMP$1"],
];

/** PostgreSQL's spelling of the column types that it does not spell as standard SQL does. */
const postgresTypeNames = { ...standardTypeNames, date: "TIMESTAMPTZ", blob: "BYTEA" };

/**
 * PostgreSQL's column types and catalogue: `NUMERIC(p, s)` for exact decimals, `TIMESTAMPTZ` for instants,
 * `BYTEA` for blobs; DDL is transactional; the catalogue is read from pg_catalog for the current schema.
 */
export class PostgresSchemaDialect extends StandardSchemaDialect {
  /** @inheritdoc */
  override readonly limits = { decimalPrecision: 1000, decimalScale: 1000, varcharLength: 10_485_760 };
  /** @inheritdoc */
  override readonly maxIdentifierLength = 63;
  /** @inheritdoc */
  protected override readonly typeNames: ColumnTypeNames = postgresTypeNames;

  /** @inheritdoc */
  override async readCatalog(query: CatalogQuery): Promise<Catalog> {
    const catalog = new CatalogSnapshot(lowerCaseFolding, lowerCaseFolding);
    for (const [table, column, type, notNull] of await query(columnsQuery))
      catalog.addColumn(String(table), { name: String(column), type: postgresTypeName(String(type)), nullable: notNull !== true });
    for (const [table, column] of await query(indexesQuery)) catalog.addIndexed(String(table), String(column));
    for (const [name] of await query(sequencesQuery)) catalog.addSequence(String(name));
    return catalog;
  }
}

/** A `format_type` text in the spelling of Tenon's DDL: `character varying(100)` is `VARCHAR(100)`. */
export function postgresTypeName(formatted: string): string {
  let name = canonicalTypeName(formatted);
  for (const [pattern, replacement] of shortNames) name = name.replace(pattern, replacement);
  return name;
}
