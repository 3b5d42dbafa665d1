import type { DateTruncation } from "../mapping/aggregate-decorator.js";
import type { ColumnType } from "../mapping/column-type.js";
import type { SchemaDialect } from "./schema-dialect.js";

/**
 * What differs between SQL engines, in one interface: each engine folder under src/engines implements it.
 * Everything above the engines (statements, session) speaks only through it.
 */
export interface Dialect {
  /** The engine's name, e.g. `sqlite`, `postgres`, `mariadb`. */
  readonly name: string;
  /** Quotes an identifier, folding its case the way the engine folds unquoted names. */
  quoteIdentifier(identifier: string): string;
  /** The positional placeholder of the parameter at `index` (0-based): `?` or `$1`. */
  placeholder(index: number): string;
  /**
   * Whether ORDER BY puts NULL first in ascending and last in descending order by itself (SQLite, MariaDB).
   * Where not (PostgreSQL), the statements say `NULLS FIRST` / `NULLS LAST` on nullable columns, so that
   * NULL is the lowest value on every engine (keyset pages rely on it).
   */
  readonly sortsNullsLow: boolean;
  /** The clause that pages a SELECT, appended after ORDER BY, from the placeholders of the bound limit and offset. */
  paginate(limit: string, offset: string): string;
  /** Converts an entity value to what the driver binds. `null` stays null. */
  toDatabase(value: unknown, type: ColumnType<unknown>): unknown;
  /**
   * `toDatabase` for one column type, as a function made once per column and called per write: the values of a
   * statement are read by a function built per column list, which calls each column's own (see
   * `fromDatabaseOf`). It answers what `toDatabase(value, type)` answers. Absent, `toDatabase` is called.
   * @internal A fast path, not public API.
   */
  toDatabaseOf?(type: ColumnType<unknown>): (value: unknown) => unknown;
  /** Converts what the driver read to the entity value of the declared type. `null` stays null. */
  fromDatabase(value: unknown, type: ColumnType<unknown>): unknown;
  /**
   * `fromDatabase` for one column type, as a function made once per column and called per row: a row filler
   * built for a class calls each column's own, which the engine can inline (one call site of `fromDatabase`
   * sees every type). It answers what `fromDatabase(value, type)` answers. Absent (a dialect written before
   * it), the row filler calls `fromDatabase`.
   * @internal A fast path, not public API.
   */
  fromDatabaseOf?(type: ColumnType<unknown>): (value: unknown) => unknown;
  /**
   * What an INSERT appends so that a row whose primary key (`quotedKey`) is taken is skipped, counting 0
   * rows, instead of failing: ` ON CONFLICT (key) DO NOTHING`. Empty where the engine has no clause limited
   * to one index (its duplicate-key error is then a `UniqueViolationError`). A failed statement would abort a
   * PostgreSQL transaction; a skipped one does not, so an insert can retry with another key.
   */
  insertKeyConflict(quotedKey: string): string;
  /**
   * `column LIKE placeholder` (or NOT LIKE) in which `%` and `_` are the only wildcards and no character
   * escapes: the same pattern matches the same text on every engine.
   */
  like(column: string, operator: "LIKE" | "NOT LIKE", placeholder: string): string;
  /**
   * A placeholder where the engine cannot infer the value's type from its place (a branch of a CASE that a
   * multi-row UPDATE assigns to a column): PostgreSQL casts it to the column's base type, others write it as is.
   */
  typedPlaceholder(placeholder: string, type: ColumnType<unknown>): string;
  /** The value to bind for a LIKE pattern, so that `like` gives it the meaning above. */
  likePattern(pattern: string): string;
  /** Converts a constant of a `@WhereClause` parameter or an `addWhere` parameter to what the driver binds. */
  toParameter(value: unknown): unknown;
  /**
   * A date column's value truncated to the start of its day, week (from Monday), month or year in UTC, as an
   * expression that compares with a bound date and that `fromDatabase` reads back as a date.
   */
  truncateDate(column: string, unit: DateTruncation): string;
  /**
   * A placeholder whose value (decimal text or a number) an aggregate's result is compared with exactly: cast to
   * the engine's exact numeric type where a bare parameter would be compared as a double.
   */
  exactNumber(placeholder: string): string;
  /**
   * Whether the engine holds a decimal as the integer count of its 10^-scale units (SQLite), so that SQL
   * arithmetic on a decimal column (a sum, an average's comparison) is in those units.
   */
  readonly decimalUnits: boolean;
  /** Whether the engine sums (and averages) a column of this numeric type exactly; an aggregate refuses the others. */
  sumsExactly(type: ColumnType<unknown>): boolean;
  /**
   * Whether a value of this column type that the engine is given reads back as the same value (converted by
   * `fromDatabase`, it equals what `toDatabase` was given): then the reload after an update need not read the
   * columns the update wrote of this type (`EntityStatements.rereadColumns`). False, or no such method (a dialect
   * written before it), is always safe.
   */
  readsBackAsWritten?(type: ColumnType<unknown>): boolean;
  /**
   * An expression of one text value holding the values of `columns` (SQL expressions) as a JSON array, in their
   * order: a row read packed (`EntityStatements.packedSelectFrom`), which an engine whose driver builds a row value
   * by value may read as one text and parse at once (`Connection.queryOneNow`). Absent where no engine of the
   * dialect reads rows so.
   * @internal A fast path, not public API.
   */
  packRow?(columns: readonly string[]): string;
  /**
   * How the engine estimates from its statistics the rows a SELECT reads (a count of mode `estimated`); absent
   * where it keeps none, and the count is then exact.
   */
  readonly rowEstimate?: RowEstimate;
  /**
   * The statement a transaction that wrote change records sends before COMMIT, so that the listeners of
   * `Database.listenForChanges` hear of it when (and only if) it commits; absent where the engine has none.
   */
  readonly changeNotification?: string;
  /**
   * An SQL expression of the database server's clock: milliseconds since the epoch, as an integer. Leases
   * (the webhooks' one deliverer per subscription) compare expiries with it, so that the processes of several
   * machines agree on time through one clock. Absent where the engine has none (webhooks are then refused).
   */
  readonly currentMillis?: string;
  /** What the schema tool needs of the engine (column types, DDL forms, the catalogue); absent where it cannot write schemas. */
  readonly schema?: SchemaDialect;
}

/** How an engine's planner tells the rows a SELECT would read, without reading them. */
export interface RowEstimate {
  /** The statement that asks the planner about `select` (its parameters are the select's). */
  explain(select: string): string;
  /** The estimated number of rows from the rows `explain` answered; undefined when the plan says nothing. */
  rows(answer: readonly unknown[][]): number | undefined;
}
