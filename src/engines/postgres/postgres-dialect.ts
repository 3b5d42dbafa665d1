import { formatIsoDate } from "../../values/iso-date.js";
import type { ColumnType } from "../../mapping/column-type.js";
import type { Dialect } from "../../sql/dialect.js";
import { bufferOf } from "../../values/bytes.js";
import { convertCommon } from "../value-conversion.js";
import { PostgresSchemaDialect } from "./postgres-schema-dialect.js";

/**
 * PostgreSQL (and the engines that speak its protocol: CockroachDB, YugabyteDB, Citus). PostgreSQL folds
 * unquoted identifiers to lower case, so a name is lower-cased before it is double-quoted: `Companies`
 * becomes `"companies"`, the same table that `CREATE TABLE Companies` made. Placeholders are `$1`, `$2`...;
 * dates are `timestamptz` written as ISO-8601 UTC text; int64 travels as text and comes back as bigint.
 */
export class PostgresDialect implements Dialect {
  /** @inheritdoc */
  readonly name = "postgres";
  readonly sortsNullsLow = false;

  /** @inheritdoc */
  readonly schema = new PostgresSchemaDialect();

  /** @inheritdoc */
  quoteIdentifier(identifier: string): string {
    return `"${identifier.toLowerCase().replaceAll('"', '""')}"`;
  }

  /** @inheritdoc */
  placeholder(index: number): string {
    return `$${index + 1}`;
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
        return Boolean(value);
      case "int64":
        return typeof value === "bigint" ? value.toString() : String(value);
      default:
        return this.toParameter(value);
    }
  }

  /** @inheritdoc */
  fromDatabase(value: unknown, type: ColumnType<unknown>): unknown {
    return convertCommon(value, type);
  }

  /** @inheritdoc PostgreSQL's LIKE escapes with a backslash unless told that there is no escape character. */
  like(column: string, operator: "LIKE" | "NOT LIKE", placeholder: string): string {
    return `${column} ${operator} ${placeholder} ESCAPE ''`;
  }

  /** @inheritdoc */
  likePattern(pattern: string): string {
    return pattern;
  }

  /** @inheritdoc A CASE of untyped parameters would be text; varchar is cast without its length, which would truncate. */
  typedPlaceholder(placeholder: string, type: ColumnType<unknown>): string {
    const sqlType = type.kind === "string" ? "TEXT" : type.kind === "decimal" ? "NUMERIC" : this.schema.columnType(type);
    return `CAST(${placeholder} AS ${sqlType})`;
  }

  /** @inheritdoc */
  insertKeyConflict(quotedKey: string): string {
    return ` ON CONFLICT (${quotedKey}) DO NOTHING`;
  }

  /** @inheritdoc */
  toParameter(value: unknown): unknown {
    if (value instanceof Date) return formatIsoDate(value);
    if (typeof value === "bigint") return value.toString();
    if (value instanceof Uint8Array) return bufferOf(value);
    return value;
  }
}
