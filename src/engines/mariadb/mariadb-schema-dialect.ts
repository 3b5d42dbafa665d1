import type { ColumnType } from "../../mapping/column-type.js";
import { CatalogSnapshot, canonicalTypeName, caseInsensitive, caseSensitive, type Catalog } from "../../sql/catalog.js";
import type { CatalogQuery, SchemaDialect, SequenceOptions } from "../../sql/schema-dialect.js";

const columnsQuery = `SELECT c.TABLE_NAME, c.COLUMN_NAME, c.COLUMN_TYPE, c.IS_NULLABLE
FROM information_schema.COLUMNS c
JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
WHERE c.TABLE_SCHEMA = DATABASE() AND t.TABLE_TYPE = 'BASE TABLE'
ORDER BY c.TABLE_NAME, c.ORDINAL_POSITION`;

const indexesQuery = `SELECT TABLE_NAME, COLUMN_NAME FROM information_schema.STATISTICS
WHERE TABLE_SCHEMA = DATABASE() AND SEQ_IN_INDEX = 1`;

const sequencesQuery = `SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'SEQUENCE'`;

/**
 * MariaDB's column types and catalogue: `DECIMAL(p, s)` (at most 65 digits, 38 after the point),
 * `DATETIME(3)` holding UTC wall-clock time, `LONGTEXT` for text of any length, `LONGBLOB`; DDL commits
 * implicitly, so it cannot be rolled back. Table names compare as the server's `lower_case_table_names` says.
 */
export class MariaDbSchemaDialect implements SchemaDialect {
  /** @inheritdoc */
  readonly limits = { decimalPrecision: 65, decimalScale: 38, varcharLength: 16_383 };
  /** @inheritdoc */
  readonly transactionalDdl = false;
  /** @inheritdoc */
  readonly inlineForeignKeys = false;
  /** @inheritdoc */
  readonly addsNotNullColumns = true;
  /** @inheritdoc */
  readonly hasSequences = true;
  /** @inheritdoc */
  readonly galeraSequences = true;
  /** @inheritdoc */
  readonly maxIdentifierLength = 64;

  /** @inheritdoc */
  columnType(type: ColumnType<unknown>): string {
    switch (type.kind) {
      case "int32":
      case "lazy":
        return "INT";
      case "int64":
        return "BIGINT";
      case "float":
        return "DOUBLE";
      case "decimal":
        return `DECIMAL(${type.precision}, ${type.scale})`;
      case "string":
        return type.size === undefined ? "LONGTEXT" : `VARCHAR(${type.size})`;
      case "boolean":
        return "BOOLEAN";
      case "date":
        return "DATETIME(3)";
      case "blob":
        return "LONGBLOB";
    }
  }

  /** @inheritdoc */
  createSequence(quotedName: string, options: SequenceOptions): string {
    const start = (options.start ?? 1) > 1 ? ` START WITH ${options.start}` : "";
    return options.galera === true
      ? `CREATE SEQUENCE ${quotedName}${start} INCREMENT BY 0 NOCACHE ENGINE=InnoDB`
      : `CREATE SEQUENCE ${quotedName}${start}`;
  }

  /** @inheritdoc */
  async readCatalog(query: CatalogQuery): Promise<Catalog> {
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
