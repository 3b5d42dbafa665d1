import type { DateTruncation } from "../mapping/aggregate-decorator.js";
import type { ColumnType } from "../mapping/column-type.js";
import type { Dialect } from "../sql/dialect.js";
import type { SchemaDialect } from "../sql/schema-dialect.js";
import { bufferOf } from "../values/bytes.js";
import { formatIsoDate } from "../values/iso-date.js";
import { commonConverterOf, convertCommon } from "./value-conversion.js";

/**
 * What the engines' dialects share, written once: double-quoted identifiers, `?` placeholders, LIMIT and
 * OFFSET, LIKE without an escape character, ` ON CONFLICT (key) DO NOTHING`, dates as ISO-8601 UTC text,
 * booleans as 0/1, bytes as a Buffer. An engine's dialect extends it and overrides only what differs.
 */
export abstract class StandardDialect implements Dialect {
  /** @inheritdoc */
  abstract readonly name: string;

  /** @inheritdoc */
  abstract readonly schema: SchemaDialect;

  /** @inheritdoc NULL is the lowest value in ORDER BY (SQLite, MariaDB). */
  readonly sortsNullsLow: boolean = true;

  /** @inheritdoc */
  quoteIdentifier(identifier: string): string {
    return `"${identifier.replaceAll('"', '""')}"`;
  }

  /** @inheritdoc */
  placeholder(_index: number): string {
    return "?";
  }

  /** @inheritdoc */
  paginate(limit: string, offset: string): string {
    return ` LIMIT ${limit} OFFSET ${offset}`;
  }

  /** @inheritdoc The engine infers the type of a CASE branch's parameter from the value bound. */
  typedPlaceholder(placeholder: string, _type: ColumnType<unknown>): string {
    return placeholder;
  }

  /** @inheritdoc */
  toDatabase(value: unknown, type: ColumnType<unknown>): unknown {
    if (value === null || value === undefined) return null;
    if (type.kind === "boolean") return this.booleanParameter(Boolean(value));
    return this.toParameter(value);
  }

  /** @internal A fast path, not API (see `Dialect.toDatabaseOf`). */
  toDatabaseOf(type: ColumnType<unknown>): (value: unknown) => unknown {
    return (value) => this.toDatabase(value, type);
  }

  /** @inheritdoc */
  fromDatabase(value: unknown, type: ColumnType<unknown>): unknown {
    return convertCommon(value, type);
  }

  /**
   * @internal A fast path, not API (see `Dialect.fromDatabaseOf`). A dialect that overrides `fromDatabase` gets it
   * called, unless it overrides this too.
   */
  fromDatabaseOf(type: ColumnType<unknown>): (value: unknown) => unknown {
    if (this.fromDatabase === StandardDialect.prototype.fromDatabase) return commonConverterOf(type);
    return (value) => this.fromDatabase(value, type);
  }

  /** @inheritdoc */
  like(column: string, operator: "LIKE" | "NOT LIKE", placeholder: string): string {
    return `${column} ${operator} ${placeholder}`;
  }

  /** @inheritdoc */
  likePattern(pattern: string): string {
    return pattern;
  }

  /** @inheritdoc */
  abstract truncateDate(column: string, unit: DateTruncation): string;

  /** @inheritdoc Decimals are the engine's exact type. */
  readonly decimalUnits: boolean = false;

  /** @inheritdoc The engine compares a numeric parameter exactly. */
  exactNumber(placeholder: string): string {
    return placeholder;
  }

  /** @inheritdoc Every numeric type sums exactly (decimals in the engine's exact type). */
  sumsExactly(_type: ColumnType<unknown>): boolean {
    return true;
  }

  /** @inheritdoc None by default: every column of a row is read again. */
  readsBackAsWritten(_type: ColumnType<unknown>): boolean {
    return false;
  }

  /** @inheritdoc */
  insertKeyConflict(quotedKey: string): string {
    return ` ON CONFLICT (${quotedKey}) DO NOTHING`;
  }

  /** @inheritdoc */
  toParameter(value: unknown): unknown {
    if (typeof value === "boolean") return this.booleanParameter(value);
    if (value instanceof Date) return this.dateParameter(value);
    if (value instanceof Uint8Array) return bufferOf(value);
    if (typeof value === "bigint") return this.bigintParameter(value);
    return value;
  }

  /** What the driver binds for a boolean: 0 or 1 unless the engine has a boolean type. */
  protected booleanParameter(value: boolean): unknown {
    return value ? 1 : 0;
  }

  /** What the driver binds for a point in time: ISO-8601 UTC text unless the engine stores another form. */
  protected dateParameter(value: Date): unknown {
    return formatIsoDate(value);
  }

  /** What the driver binds for a 64-bit integer: the bigint itself unless the driver wants text. */
  protected bigintParameter(value: bigint): unknown {
    return value;
  }
}
