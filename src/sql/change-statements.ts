import { type ColumnType, Type } from "../mapping/column-type.js";
import { PerKeyCache } from "../per-key-cache.js";
import type { Dialect } from "./dialect.js";
import type { TableDefinition } from "./schema-statements.js";

const column = (name: string, type: ColumnType<unknown>, nullable = false) => ({ name, type, nullable });

/**
 * The change records of the entities with a change feed (the transactional outbox): one row per committed
 * insert, update, delete or undelete, numbered by `position` in commit order. `data` holds the entity's JSON
 * after the change (before it, for a delete), `changed_at` the commit time in milliseconds since the epoch.
 * The schema tool creates it (`SchemaOptions.changeFeed`).
 */
export const changeTable: TableDefinition = {
  name: "tenon_changes",
  primaryKey: "position",
  columns: [
    column("position", Type.int64 as ColumnType<unknown>),
    column("entity", Type.varchar(100) as ColumnType<unknown>),
    column("entity_key", Type.int32 as ColumnType<unknown>),
    column("action", Type.varchar(10) as ColumnType<unknown>),
    column("version", Type.int32 as ColumnType<unknown>, true),
    column("data", Type.string as ColumnType<unknown>, true),
    column("user_name", Type.varchar(100) as ColumnType<unknown>),
    column("tenant", Type.varchar(100) as ColumnType<unknown>, true),
    column("changed_at", Type.int64 as ColumnType<unknown>),
  ],
};

/**
 * The one-row counter of the change records: the last position handed out. A committing transaction
 * raises it and holds its row lock until COMMIT, so positions are handed out in commit order and never
 * reused, even once every record is purged.
 */
export const changeCounterTable: TableDefinition = {
  name: "tenon_change_counter",
  primaryKey: "id",
  columns: [column("id", Type.int32 as ColumnType<unknown>), column("position", Type.int64 as ColumnType<unknown>)],
};

/** The columns of a change record as the statements below read and write them, in order. */
export const changeColumns = [
  "position",
  "entity",
  "entity_key",
  "action",
  "version",
  "data",
  "user_name",
  "tenant",
  "changed_at",
] as const;

/**
 * The statements of the change tables on one engine, with positional parameters. Reads answer the columns of
 * `changeColumns` in that order.
 */
export class ChangeStatements {
  /** Raises the counter by `?` (the number of records to write); changes no row before the counter exists. */
  readonly raiseCounter: string;
  /** The counter's position. */
  readonly readCounter: string;
  /** Creates the counter at `?` (skipped, counting 0 rows, where the engine can when another transaction made it first). */
  readonly createCounter: string;
  /** The oldest position kept (NULL when no record is kept). */
  readonly oldest: string;
  /** DELETE of the records up to position `?`. */
  readonly purgeUpTo: string;
  /** The first position changed at or after the time `?` (NULL when none). */
  readonly firstSince: string;
  readonly #dialect: Dialect;
  readonly #select: string;
  readonly #insertHead: string;
  readonly #row: string[] = [];

  /** @param dialect the engine. */
  constructor(dialect: Dialect) {
    this.#dialect = dialect;
    const q = (name: string): string => dialect.quoteIdentifier(name);
    const counter = q(changeCounterTable.name);
    const table = q(changeTable.name);
    const p = (index: number): string => dialect.placeholder(index);
    this.raiseCounter = `UPDATE ${counter} SET ${q("position")} = ${q("position")} + ${p(0)} WHERE ${q("id")} = 1`;
    this.readCounter = `SELECT ${q("position")} FROM ${counter} WHERE ${q("id")} = 1`;
    this.createCounter = `INSERT INTO ${counter} (${q("id")}, ${q("position")}) VALUES (1, ${p(0)})${dialect.insertKeyConflict(q("id"))}`;
    this.oldest = `SELECT MIN(${q("position")}) FROM ${table}`;
    this.purgeUpTo = `DELETE FROM ${table} WHERE ${q("position")} <= ${p(0)}`;
    this.firstSince = `SELECT MIN(${q("position")}) FROM ${table} WHERE ${q("changed_at")} >= ${p(0)}`;
    const columns = changeColumns.map(q).join(", ");
    this.#select = `SELECT ${columns} FROM ${table}`;
    this.#insertHead = `INSERT INTO ${table} (${columns}) VALUES `;
  }

  /** INSERT of `count` records, their columns bound in the order of `changeColumns`, one record after another. */
  insert(count: number): string {
    const rows: string[] = [];
    for (let i = 0; i < count; i++) rows.push(this.#rowAt(i));
    return this.#insertHead + rows.join(", ");
  }

  /**
   * SELECT of the records after a position, in position order, at most a limit of them: bound are `entities`
   * entity names (none: every entity), then when `scoped` the tenant (only records without a tenant or of that
   * one), then the position, the limit and 0 (the offset).
   */
  after(entities: number, scoped: boolean): string {
    const q = (name: string): string => this.#dialect.quoteIdentifier(name);
    let index = 0;
    const where: string[] = [];
    if (entities > 0) {
      const names: string[] = [];
      for (let i = 0; i < entities; i++) names.push(this.#dialect.placeholder(index++));
      where.push(`${q("entity")} IN (${names.join(", ")})`);
    }
    if (scoped) where.push(`(${q("tenant")} IS NULL OR ${q("tenant")} = ${this.#dialect.placeholder(index++)})`);
    where.push(`${q("position")} > ${this.#dialect.placeholder(index++)}`);
    return `${this.#select} WHERE ${where.join(" AND ")} ORDER BY ${q("position")} ${this.#dialect.paginate(this.#dialect.placeholder(index), this.#dialect.placeholder(index + 1)).trim()}`;
  }

  #rowAt(row: number): string {
    let text = this.#row[row];
    if (text === undefined) {
      const base = row * changeColumns.length;
      const marks = changeColumns.map((_, i) => this.#dialect.placeholder(base + i));
      text = `(${marks.join(", ")})`;
      this.#row[row] = text;
    }
    return text;
  }
}

const cache = new PerKeyCache((dialect: Dialect) => new ChangeStatements(dialect));

/** The change statements of `dialect`, built once. */
export function changeStatementsOf(dialect: Dialect): ChangeStatements {
  return cache.of(dialect);
}
