import { EngineMessages } from "../engine-messages.js";
import { CatalogSnapshot, canonicalTypeName, caseInsensitive, type Catalog } from "../../sql/catalog.js";
import type { CatalogQuery } from "../../sql/schema-dialect.js";
import { type ColumnTypeNames, StandardSchemaDialect, standardTypeNames } from "../standard-schema-dialect.js";
import { maxIntegerPrecision } from "./sqlite-decimal.js";
import { createKeyTable, keyTable } from "./sqlite-keys.js";

const columnsQuery = `SELECT m.name, p.name, p.type, p."notnull", p.pk
FROM sqlite_master m JOIN pragma_table_info(m.name) p
WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite%'
ORDER BY m.name, p.cid`;

const indexesQuery = `SELECT m.name, i.name
FROM sqlite_master m JOIN pragma_index_list(m.name) l JOIN pragma_index_info(l.name) i
WHERE m.type = 'table' AND i.seqno = 0`;

/** SQLite's spelling of the column types that it does not spell as standard SQL does. */
const sqliteTypeNames = { ...standardTypeNames, int64: "INTEGER", float: "REAL", boolean: "INTEGER", date: "TEXT" };

/**
 * SQLite's column types and catalogue. Declared types are kept as written, so `VARCHAR(100)` records the
 * mapping's size (SQLite gives it TEXT affinity and does not enforce it); decimals are INTEGER up to
 * precision 18 and TEXT above, the column types of the exact, comparable forms Tenon stores them in
 * (docs/engines.md "Decimals on SQLite"), so that no digit goes through a floating-point number. DDL is transactional; there are no sequences: keys come from the key
 * table `tenon_keys` (see `SqliteKeys`); a foreign key can only be declared when its table is created.
 */
export class SqliteSchemaDialect extends StandardSchemaDialect {
  /** @inheritdoc */
  override readonly limits = { decimalPrecision: 1000, decimalScale: 1000, varcharLength: 1_000_000_000 };
  /** @inheritdoc */
  override readonly inlineForeignKeys = true;
  /** @inheritdoc */
  override readonly addsNotNullColumns = false;
  /** @inheritdoc */
  override readonly hasSequences = false;
  /** @inheritdoc */
  readonly keyTable = { name: keyTable, create: createKeyTable };
  /** @inheritdoc */
  override readonly maxIdentifierLength = 1000;
  /** @inheritdoc */
  protected override readonly typeNames: ColumnTypeNames = sqliteTypeNames;

  /** Scaled 64-bit integers up to precision 18, comparable text above (sqlite-decimal.ts). */
  protected override decimalType(precision: number | undefined): string {
    return (precision ?? maxIntegerPrecision) <= maxIntegerPrecision ? "INTEGER" : "TEXT";
  }

  /** SQLite has no sequences; the schema tool never asks it for one (`hasSequences` is false). */
  override createSequence(): string {
    throw new TypeError(EngineMessages.sqliteHasNoSequences);
  }

  /** @inheritdoc */
  override async readCatalog(query: CatalogQuery): Promise<Catalog> {
    const catalog = new CatalogSnapshot(caseInsensitive, caseInsensitive);
    for (const [table, column, type, notNull, key] of await query(columnsQuery)) {
      const isKey = Number(key) > 0;
      // An INTEGER PRIMARY KEY is the rowid: it can never hold NULL, NOT NULL written or not.
      const rowid = isKey && canonicalTypeName(String(type)) === "INTEGER";
      catalog.addColumn(String(table), {
        name: String(column),
        type: canonicalTypeName(String(type)),
        nullable: Number(notNull) === 0 && !rowid,
      });
      if (Number(key) === 1) catalog.addIndexed(String(table), String(column));
    }
    for (const [table, column] of await query(indexesQuery)) if (column !== null) catalog.addIndexed(String(table), String(column));
    return catalog;
  }
}
