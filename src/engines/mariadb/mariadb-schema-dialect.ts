import { CatalogSnapshot, canonicalTypeName, caseInsensitive, caseSensitive, type Catalog } from "../../sql/catalog.js";
import type { CatalogQuery, SequenceOptions } from "../../sql/schema-dialect.js";
import { type ColumnTypeNames, StandardSchemaDialect, standardTypeNames } from "../standard-schema-dialect.js";

const columnsQuery = `SELECT c.TABLE_NAME, c.COLUMN_NAME, c.COLUMN_TYPE, c.IS_NULLABLE
FROM information_schema.COLUMNS c
JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
WHERE c.TABLE_SCHEMA = DATABASE() AND t.TABLE_TYPE = 'BASE TABLE'
ORDER BY c.TABLE_NAME, c.ORDINAL_POSITION`;

const indexesQuery = `SELECT TABLE_NAME, COLUMN_NAME FROM information_schema.STATISTICS
WHERE TABLE_SCHEMA = DATABASE() AND SEQ_IN_INDEX = 1`;

const sequencesQuery = `SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'SEQUENCE'`;

/** MariaDB's spelling of the column types that it does not spell as standard SQL does. */
const mariaDbTypeNames = { ...standardTypeNames, int32: "INT", float: "DOUBLE", date: "DATETIME(3)", blob: "LONGBLOB", text: "LONGTEXT" };

/**
 * MariaDB's column types and catalogue: `DECIMAL(p, s)` (at most 65 digits, 38 after the point),
 * `DATETIME(3)` holding UTC wall-clock time, `LONGTEXT` for text of any length, `LONGBLOB`; DDL commits
 * implicitly, so it cannot be rolled back. Table names compare as the server's `lower_case_table_names` says.
 */
export class MariaDbSchemaDialect extends StandardSchemaDialect {
  /** @inheritdoc */
  override readonly limits = { decimalPrecision: 65, decimalScale: 38, varcharLength: 16_383 };
  /** @inheritdoc */
  override readonly transactionalDdl = false;
  /** @inheritdoc */
  override readonly galeraSequences = true;
  /** @inheritdoc */
  override readonly maxIdentifierLength = 64;
  /** @inheritdoc */
  protected override readonly typeNames: ColumnTypeNames = mariaDbTypeNames;

  /** @inheritdoc */
  protected override decimalType(precision: number | undefined, scale: number | undefined): string {
    return `DECIMAL(${precision}, ${scale})`;
  }

  /** @inheritdoc */
  override createSequence(quotedName: string, options: SequenceOptions): string {
    const sequence = super.createSequence(quotedName, options);
    return options.galera === true ? `${sequence} INCREMENT BY 0 NOCACHE ENGINE=InnoDB` : sequence;
  }

  /** @inheritdoc */
  override async readCatalog(query: CatalogQuery): Promise<Catalog> {
    const [[lowerCaseTableNames]] = await query("SELECT @@lower_case_table_names");
    const catalog = new CatalogSnapshot(Number(lowerCaseTableNames) === 0 ? caseSensitive : caseInsensitive, caseInsensitive);
    for (const [table, column, type, nullable] of await query(columnsQuery))
      catalog.addColumn(String(table), { name: String(column), type: mariaDbTypeName(String(type)), nullable: nullable === "YES" });
    for (const [table, column] of await query(indexesQuery)) catalog.addIndexed(String(table), String(column));
    for (const [name] of await query(sequencesQuery)) catalog.addSequence(String(name));
    return catalog;
  }
}

/** A `COLUMN_TYPE` in the spelling of Tenon's DDL: `int(11)` is `INT`, `tinyint(1)` is `BOOLEAN`. */
export function mariaDbTypeName(columnType: string): string {
  const name = canonicalTypeName(columnType);
  if (name === "TINYINT(1)") return "BOOLEAN";
  return name.replace(/^(TINYINT|SMALLINT|MEDIUMINT|INT|BIGINT)\(\d+\)/, "$1");
}
