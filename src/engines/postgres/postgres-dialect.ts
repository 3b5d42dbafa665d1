import type { DateTruncation } from "../../mapping/aggregate-decorator.js";
import type { ColumnType } from "../../mapping/column-type.js";
import type { RowEstimate } from "../../sql/dialect.js";
import { StandardDialect } from "../standard-dialect.js";
import { PostgresSchemaDialect } from "./postgres-schema-dialect.js";

/**
 * PostgreSQL (and the engines that speak its protocol: CockroachDB, YugabyteDB, Citus). PostgreSQL folds
 * unquoted identifiers to lower case, so a name is lower-cased before it is double-quoted: `Companies`
 * becomes `"companies"`, the same table that `CREATE TABLE Companies` made. Placeholders are `$1`, `$2`...;
 * dates are `timestamptz` written as ISO-8601 UTC text; int64 travels as text and comes back as bigint.
 */
/** The channel of the change feed's notifications (`NOTIFY` at commit, `LISTEN` in every reading process). */
export const changeChannel = "tenon_changes";

export class PostgresDialect extends StandardDialect {
  /** @inheritdoc A notification is delivered at COMMIT, and dropped with a rollback. */
  readonly changeNotification = `NOTIFY ${changeChannel}`;

  /** @inheritdoc */
  override readonly name = "postgres";

  /** @inheritdoc */
  readonly currentMillis = "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)";

  /** @inheritdoc */
  override readonly schema = new PostgresSchemaDialect();

  /** @inheritdoc PostgreSQL sorts NULL as the highest value. */
  override readonly sortsNullsLow = false;

  /** @inheritdoc */
  override quoteIdentifier(identifier: string): string {
    return `"${identifier.toLowerCase().replaceAll('"', '""')}"`;
  }

  /** @inheritdoc */
  override placeholder(index: number): string {
    return `$${index + 1}`;
  }

  /** @inheritdoc `date_trunc` of the UTC wall-clock time (Monday starts a week), made a `timestamptz` again. */
  override truncateDate(column: string, unit: DateTruncation): string {
    return `(date_trunc('${unit}', ${column} AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')`;
  }

  /** @inheritdoc An untyped parameter beside an integer would be read as one; NUMERIC keeps every digit. */
  override exactNumber(placeholder: string): string {
    return `CAST(${placeholder} AS NUMERIC)`;
  }

  /** @inheritdoc The planner's row estimate of the plan's top node (from `reltuples` and the column statistics). */
  readonly rowEstimate: RowEstimate = {
    explain: (select) => `EXPLAIN (FORMAT JSON) ${select}`,
    rows: (answer) => {
      const cell = answer[0]?.[0];
      const plan = (typeof cell === "string" ? JSON.parse(cell) : cell) as { Plan?: { "Plan Rows"?: unknown } }[] | undefined;
      const rows = plan?.[0]?.Plan?.["Plan Rows"];
      return typeof rows === "number" && Number.isFinite(rows) ? Math.max(0, Math.round(rows)) : undefined;
    },
  };

  /** @inheritdoc A CASE of untyped parameters would be text; varchar is cast without its length, which would truncate. */
  override typedPlaceholder(placeholder: string, type: ColumnType<unknown>): string {
    const sqlType = type.kind === "string" ? "TEXT" : type.kind === "decimal" ? "NUMERIC" : this.schema.columnType(type);
    return `CAST(${placeholder} AS ${sqlType})`;
  }

  /** @inheritdoc */
  override toDatabase(value: unknown, type: ColumnType<unknown>): unknown {
    if (value === null || value === undefined) return null;
    if (type.kind === "int64") return typeof value === "bigint" ? value.toString() : String(value);
    return super.toDatabase(value, type);
  }

  /** @inheritdoc PostgreSQL's LIKE escapes with a backslash unless told that there is no escape character. */
  override like(column: string, operator: "LIKE" | "NOT LIKE", placeholder: string): string {
    return `${column} ${operator} ${placeholder} ESCAPE ''`;
  }

  /** PostgreSQL has a boolean type. */
  protected override booleanParameter(value: boolean): unknown {
    return value;
  }

  /** The driver binds an int8 from text. */
  protected override bigintParameter(value: bigint): unknown {
    return value.toString();
  }
}
