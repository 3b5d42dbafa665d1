import { formatIsoDate } from "../../values/iso-date.js";
import type { ColumnType } from "../../mapping/column-type.js";
import { bufferOf } from "../../values/bytes.js";
import { StandardDialect } from "../standard-dialect.js";
import { convertCommon } from "../value-conversion.js";
import { SqliteSchemaDialect } from "./sqlite-schema-dialect.js";
import { fromSqliteDecimal, toSqliteDecimal } from "./sqlite-decimal.js";

/**
 * SQLite: the standard dialect as it is (identifiers in double quotes, case kept, which SQLite compares
 * without case; booleans as 0/1; dates as ISO-8601 UTC text, which sorts and compares correctly; LIKE has no
 * escape character unless one is named; int64 through JavaScript bigints), with decimals scaled to
 * integers (sqlite-decimal.ts), so they stay exact and compare numerically.
 */
export class SqliteDialect extends StandardDialect {
  /** @inheritdoc */
  override readonly name = "sqlite";

  /** @inheritdoc */
  readonly currentMillis = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)";

  /** @inheritdoc */
  override readonly schema = new SqliteSchemaDialect();

  /** @inheritdoc */
  override toDatabase(value: unknown, type: ColumnType<unknown>): unknown {
    if (value === null || value === undefined) return null;
    switch (type.kind) {
      case "boolean":
        return value ? 1 : 0;
      case "date":
        return formatIsoDate(value as Date);
      case "blob":
        return bufferOf(value as Uint8Array);
      case "decimal":
        return toSqliteDecimal(value, type);
      default:
        return super.toDatabase(value, type);
    }
  }

  /** @inheritdoc */
  override fromDatabase(value: unknown, type: ColumnType<unknown>): unknown {
    if (type.kind === "decimal" && value !== null && value !== undefined) return fromSqliteDecimal(value, type);
    return convertCommon(value, type);
  }
}
