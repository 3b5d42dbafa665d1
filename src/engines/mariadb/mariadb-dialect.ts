import type { DateTruncation } from "../../mapping/aggregate-decorator.js";
import type { RowEstimate } from "../../sql/dialect.js";
import { formatIsoDate } from "../../values/iso-date.js";
import type { ColumnType } from "../../mapping/column-type.js";
import { StandardDialect } from "../standard-dialect.js";
import { convertCommon } from "../value-conversion.js";
import { MariaDbSchemaDialect } from "./mariadb-schema-dialect.js";

/**
 * MariaDB (10.3 and later): identifiers in backticks with their case kept (table names are case-sensitive
 * on most servers, so the mapping must spell them as they were created); `?` placeholders; booleans as
 * 0/1; dates in `DATETIME(3)` as UTC wall-clock text, which no server or client time zone can shift.
 */
export class MariaDbDialect extends StandardDialect {
  /** @inheritdoc */
  override readonly name = "mariadb";

  /** @inheritdoc */
  readonly currentMillis = "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)";

  /** @inheritdoc */
  override readonly schema = new MariaDbSchemaDialect();

  /** @inheritdoc */
  override quoteIdentifier(identifier: string): string {
    return `\`${identifier.replaceAll("`", "``")}\``;
  }

  /** @inheritdoc DATETIME(3) holds UTC wall-clock time: the period's first day at midnight, as DATETIME(3) again. */
  override truncateDate(column: string, unit: DateTruncation): string {
    switch (unit) {
      case "day":
        return `CAST(DATE(${column}) AS DATETIME(3))`;
      case "week":
        return `CAST(DATE(${column}) - INTERVAL WEEKDAY(${column}) DAY AS DATETIME(3))`;
      case "month":
        return `CAST(DATE_FORMAT(${column}, '%Y-%m-01') AS DATETIME(3))`;
      case "year":
        return `CAST(DATE_FORMAT(${column}, '%Y-01-01') AS DATETIME(3))`;
    }
  }

  /** @inheritdoc A text parameter beside a DECIMAL would be compared as a double. */
  override exactNumber(placeholder: string): string {
    return `CAST(${placeholder} AS DECIMAL(65, 30))`;
  }

  /**
   * @inheritdoc The optimizer's rows of each table of the plan (InnoDB's statistics), times its filtered share,
   * multiplied over the tables joined.
   */
  readonly rowEstimate: RowEstimate = {
    explain: (select) => `EXPLAIN FORMAT=JSON ${select}`,
    rows: (answer) => {
      const cell = answer[0]?.[0];
      const tables: { rows?: unknown; filtered?: unknown }[] = [];
      collectPlanTables(typeof cell === "string" ? JSON.parse(cell) : cell, tables);
      if (tables.length === 0) return undefined;
      let rows = 1;
      for (const table of tables) {
        if (typeof table.rows !== "number") return undefined;
        rows *= table.rows * (typeof table.filtered === "number" ? table.filtered / 100 : 1);
      }
      return Math.max(0, Math.round(rows));
    },
  };

  /** @inheritdoc */
  override fromDatabase(value: unknown, type: ColumnType<unknown>): unknown {
    if (type.kind === "date" && typeof value === "string") return parseUtcDateTime(value);
    return convertCommon(value, type);
  }

  /**
   * @inheritdoc MariaDB's LIKE escapes with a backslash by default and reads `ESCAPE ''` as that default too, so
   * the escape is `!`, a character whose literal reads the same in every sql_mode, and `likePattern`
   * doubles every `!` of the pattern: no character of the client's pattern escapes another.
   */
  override like(column: string, operator: "LIKE" | "NOT LIKE", placeholder: string): string {
    return `${column} ${operator} ${placeholder} ESCAPE '!'`;
  }

  /** @inheritdoc */
  override likePattern(pattern: string): string {
    return pattern.replaceAll("!", "!!");
  }

  /** @inheritdoc */
  override insertKeyConflict(_quotedKey: string): string {
    return "";
  }

  /** DATETIME(3) holds UTC wall-clock text. */
  protected override dateParameter(value: Date): unknown {
    return formatUtcDateTime(value);
  }
}

/** `2024-05-06 07:08:09.123`: the UTC wall-clock text that DATETIME(3) stores. */
export function formatUtcDateTime(date: Date): string {
  return formatIsoDate(date).slice(0, 23).replace("T", " ");
}

/** Reads DATETIME text (`2024-05-06 07:08:09.123`, any fraction) as a UTC point in time. */
export function parseUtcDateTime(text: string): Date {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?)?$/.exec(text);
  if (match === null) return new Date(Number.NaN);
  const [, y, mo, d, h = "0", mi = "0", s = "0", fraction = ""] = match;
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s), Number(fraction.padEnd(3, "0").slice(0, 3)));
  return date;
}

/** The `table` objects of a JSON plan, at any depth (a join nests them in `nested_loop`). */
function collectPlanTables(node: unknown, into: { rows?: unknown; filtered?: unknown }[]): void {
  if (Array.isArray(node)) {
    for (const item of node) collectPlanTables(item, into);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  for (const [key, value] of Object.entries(node)) {
    if (key === "table" && typeof value === "object" && value !== null && "rows" in value) into.push(value as { rows?: unknown });
    else collectPlanTables(value, into);
  }
}
