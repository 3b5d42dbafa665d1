import type { DateTruncation } from "../../mapping/aggregate-decorator.js";
import { formatIsoDate } from "../../values/iso-date.js";
import type { ColumnType } from "../../mapping/column-type.js";
import { bufferOf } from "../../values/bytes.js";
import { StandardDialect } from "../standard-dialect.js";
import { commonConverterOf, convertCommon } from "../value-conversion.js";
import { SqliteSchemaDialect } from "./sqlite-schema-dialect.js";
import { fromSqliteDecimal, maxIntegerPrecision, toSqliteDecimal } from "./sqlite-decimal.js";

/** The empty blob every driver stores as a zero-length blob (see `toDatabase`). */
const emptyBlob = Buffer.alloc(0);

/** The column kinds whose values SQLite reads back as written (`readsBackAsWritten`). */
const readBackKinds: ReadonlySet<string> = new Set(["string", "int32", "float", "date"]);

/** The form of a date as Tenon writes it (`YYYY-MM-DDTHH:MM:SS.sssZ`, UTC), as a GLOB pattern. */
const tenonForm = "[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z";

/**
 * The start of a day, month or year of a date: of one in Tenon's form, its first `keep` characters and the rest of
 * the period's start, as text (some 40% of strftime's time over 3 x 10^5 rows); of any other text (another writer's
 * offset or form, a year beyond four digits, no date at all), strftime's `format`, as before.
 */
const startOf = (column: string, keep: number, rest: string, format: string): string =>
  `CASE WHEN ${column} GLOB '${tenonForm}' THEN substr(${column}, 1, ${keep}) || '${rest}' ELSE strftime('${format}', ${column}) END`;

/** The ISO-8601 text of the start of each period (dates are stored as that text). */
const truncations: Readonly<Record<DateTruncation, (column: string) => string>> = {
  day: (column) => startOf(column, 10, "T00:00:00.000Z", "%Y-%m-%dT00:00:00.000Z"),
  // Back six days, then forward to the next Monday: the Monday on or before the date.
  week: (column) => `strftime('%Y-%m-%dT00:00:00.000Z', ${column}, '-6 days', 'weekday 1')`,
  month: (column) => startOf(column, 7, "-01T00:00:00.000Z", "%Y-%m-01T00:00:00.000Z"),
  year: (column) => startOf(column, 4, "-01-01T00:00:00.000Z", "%Y-01-01T00:00:00.000Z"),
};

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

  /** @inheritdoc Scaled 64-bit integers (sqlite-decimal.ts). */
  override readonly decimalUnits = true;

  /** @inheritdoc Dates are ISO-8601 UTC text, which `strftime` reads and writes. */
  override truncateDate(column: string, unit: DateTruncation): string {
    return truncations[unit](column);
  }

  /**
   * @inheritdoc Decimals up to precision 18 are scaled 64-bit integers, which SUM adds exactly (and refuses with an
   * overflow error beyond 2^63 - 1 units); above, they are text that no SQL function adds.
   */
  override sumsExactly(type: ColumnType<unknown>): boolean {
    return type.kind !== "decimal" || (type.precision ?? maxIntegerPrecision) <= maxIntegerPrecision;
  }

  /**
   * @inheritdoc Text, 32-bit integers, floats and dates (ISO text, which `fromDatabase` reads back to the same
   * millisecond) are stored as bound in the column types Tenon declares for them.
   */
  override readsBackAsWritten(type: ColumnType<unknown>): boolean {
    return readBackKinds.has(type.kind);
  }

  /**
   * @internal A fast path, not API (see `Dialect.packRow`). `json_array` writes text, integers and reals as JSON
   * reads them back (reals to the last digit, which the engine checks when it opens the file), and NULL as null. A
   * blob it refuses, unless the blob is well-formed JSONB, which it writes as that JSON: so no entity with a blob
   * column is read packed, and a refused read is read again plain (`SqliteDatabase.packedRow`); only a blob that
   * another program wrote into a column Tenon maps as text, number or date, and that happens to be JSONB, reads as
   * its JSON value instead of its bytes.
   */
  packRow(columns: readonly string[]): string {
    return `json_array(${columns.join(", ")})`;
  }

  /** @inheritdoc */
  override toDatabase(value: unknown, type: ColumnType<unknown>): unknown {
    if (value === null || value === undefined) return null;
    switch (type.kind) {
      case "boolean":
        return value ? 1 : 0;
      case "date":
        return formatIsoDate(value as Date);
      case "blob":
        // An empty view over an empty ArrayBuffer has no data pointer, which node:sqlite on Node.js 22 binds as NULL.
        return (value as Uint8Array).byteLength === 0 ? emptyBlob : bufferOf(value as Uint8Array);
      case "decimal":
        return toSqliteDecimal(value, type);
      default:
        return super.toDatabase(value, type);
    }
  }

  /**
   * @internal A fast path, not API (see `Dialect.toDatabaseOf`). Text and numbers of the text and number types
   * are bound as they are, a date of a date column as its ISO text, without `toDatabase`'s dispatch; a dialect that
   * overrides `toDatabase` or `toParameter` is called.
   */
  override toDatabaseOf(type: ColumnType<unknown>): (value: unknown) => unknown {
    const convert = (value: unknown): unknown => this.toDatabase(value, type);
    if (this.toDatabase !== SqliteDialect.prototype.toDatabase || this.toParameter !== StandardDialect.prototype.toParameter)
      return convert;
    switch (type.kind) {
      case "string":
      case "int32":
      case "int64":
      case "float":
      case "lazy":
        return (value) => (typeof value === "string" || typeof value === "number" ? value : convert(value));
      case "date":
        return (value) => (value instanceof Date ? formatIsoDate(value) : convert(value));
      default:
        return convert;
    }
  }

  /** @inheritdoc */
  override fromDatabase(value: unknown, type: ColumnType<unknown>): unknown {
    if (type.kind === "decimal" && value !== null && value !== undefined) return fromSqliteDecimal(value, type);
    return convertCommon(value, type);
  }

  /** @internal A fast path, not API (see `Dialect.fromDatabaseOf`). */
  override fromDatabaseOf(type: ColumnType<unknown>): (value: unknown) => unknown {
    if (type.kind === "decimal" || this.fromDatabase !== SqliteDialect.prototype.fromDatabase) {
      return (value) => this.fromDatabase(value, type);
    }
    return commonConverterOf(type);
  }
}
