import { formatIsoDate } from "../../values/iso-date.js";
import type { ColumnType } from "../../mapping/column-type.js";
import type { Dialect } from "../../sql/dialect.js";
import { bufferOf } from "../../values/bytes.js";
import { convertCommon } from "../value-conversion.js";
import { SqliteSchemaDialect } from "./sqlite-schema-dialect.js";
import { fromSqliteDecimal, toSqliteDecimal } from "./sqlite-decimal.js";

/**
 * SQLite: identifiers in double quotes, case kept (SQLite compares them without case); booleans as 0/1;
 * dates as ISO-8601 UTC text (which sorts and compares correctly); int64 through JavaScript bigints;
 * decimals scaled to integers (sqlite-decimal.ts), so they stay exact and compare numerically.
 */
export class SqliteDialect implements Dialect {
  /** @inheritdoc */
  readonly name = "sqlite";
  readonly sortsNullsLow = true;

  /** @inheritdoc */
  readonly schema = new SqliteSchemaDialect();

  /** @inheritdoc */
  quoteIdentifier(identifier: string): string {
    return `"${identifier.replaceAll('"', '""')}"`;
  }

  /** @inheritdoc */
  placeholder(): string {
    return "?";
  }

  /** @inheritdoc */
  paginate(limit: string, offset: string): string {
    return ` LIMIT ${limit} OFFSET ${offset}`;
  }

  /** @inheritdoc */
  toDatabase(value: unknown, type: ColumnType<unknown>): unknown {
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
        return this.toParameter(value);
    }
  }

  /** @inheritdoc */
  fromDatabase(value: unknown, type: ColumnType<unknown>): unknown {
    if (type.kind === "decimal" && value !== null && value !== undefined) return fromSqliteDecimal(value, type);
    return convertCommon(value, type);
  }

  /** @inheritdoc SQLite's LIKE has no escape character unless one is named. */
  like(column: string, operator: "LIKE" | "NOT LIKE", placeholder: string): string {
    return `${column} ${operator} ${placeholder}`;
  }

  /** @inheritdoc */
  likePattern(pattern: string): string {
    return pattern;
  }

  /** @inheritdoc The engine infers the type of a CASE branch's parameter from the value bound. */
  typedPlaceholder(placeholder: string): string {
    return placeholder;
  }

  /** @inheritdoc */
  insertKeyConflict(quotedKey: string): string {
    return ` ON CONFLICT (${quotedKey}) DO NOTHING`;
  }

  /** @inheritdoc */
  toParameter(value: unknown): unknown {
    if (typeof value === "boolean") return value ? 1 : 0;
    if (value instanceof Date) return formatIsoDate(value);
    if (value instanceof Uint8Array) return bufferOf(value);
    return value;
  }
}
