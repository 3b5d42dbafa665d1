import type { Condition, OrderByItem } from "../filter/condition.js";
import type { Filter } from "../filter/filter.js";
import type { ColumnMapping, EntityMapping } from "../mapping/entity-mapping.js";
import type { Dialect } from "./dialect.js";
import { compileNamedParameters } from "./named-parameters.js";

/** SQL text and its positional parameters, ready for a connection. */
export interface CompiledStatement {
  /** The SQL in the engine's placeholder form. */
  readonly sql: string;
  /** The values, in placeholder order, already converted for the driver. */
  readonly parameters: unknown[];
}

/**
 * The SQL of one entity on one engine. The fixed statements (by id, insert, update, delete) are built
 * once per mapping and dialect; selects with a filter are rendered per call, every value bound.
 */
export class EntityStatements {
  /** The mapping. */
  readonly mapping: EntityMapping;
  /** The dialect. */
  readonly dialect: Dialect;
  /** Whether a selected column is an int64, so the driver must read integers exactly. */
  readonly exactIntegers: boolean;
  /** SELECT <columns> FROM <table> <joins>, without WHERE. */
  readonly selectFrom: string;
  /** The columns written by INSERT, in parameter order. */
  readonly insertColumns: readonly ColumnMapping[];
  /** INSERT INTO ... VALUES (...). */
  readonly insertSql: string;
  /** The columns set by UPDATE, in parameter order (the primary key and version follow in the WHERE). */
  readonly updateColumns: readonly ColumnMapping[];
  /** UPDATE ... SET ..., version = version + 1 WHERE id = ? [AND version = ?] [AND DeletedAt IS NULL]. */
  readonly updateSql: string;
  /** Hard DELETE by id [and version]. */
  readonly deleteSql: string;
  /** Soft delete: UPDATE setting the Deleted pair (when the entity has `@DeletedAt`). */
  readonly softDeleteSql: string | undefined;
  /** The columns the soft delete sets. */
  readonly softDeleteColumns: readonly ColumnMapping[];
  /** Undelete: UPDATE clearing the Deleted pair and setting the Updated pair. */
  readonly undeleteSql: string | undefined;
  /** The columns the undelete sets (after the cleared Deleted pair). */
  readonly undeleteColumns: readonly ColumnMapping[];
  readonly #byId: Map<boolean, CompiledStatement> = new Map();
  readonly #whereClause: Map<string, unknown>;

  /** Builds the fixed statements of `mapping` for `dialect`. */
  constructor(mapping: EntityMapping, dialect: Dialect) {
    this.mapping = mapping;
    this.dialect = dialect;
    const q = (name: string): string => dialect.quoteIdentifier(name);
    const table = q(mapping.tableName);
    const qualify = mapping.isJoinEntity;
    const columnSql = (column: ColumnMapping): string =>
      column.alias !== undefined
        ? `${q(column.alias)}.${q(column.columnName)}`
        : qualify
          ? `${table}.${q(column.columnName)}`
          : q(column.columnName);
    this.columnSql = columnSql;
    let from = `SELECT ${mapping.columns.map(columnSql).join(", ")} FROM ${table}`;
    for (const join of mapping.joins) {
      const joined = join.alias === join.table ? q(join.table) : `${q(join.table)} ${q(join.alias)}`;
      const source = join.sourceTableOrAlias === undefined ? table : q(join.sourceTableOrAlias);
      from += ` ${join.kind} JOIN ${joined} ON ${q(join.alias)}.${q(join.targetColumn)} = ${source}.${q(join.sourceColumn)}`;
    }
    this.selectFrom = from;
    this.exactIntegers = mapping.columns.some((column) => column.type.kind === "int64");
    this.#whereClause = new Map(mapping.whereClauseParameters.map((p) => [p.name, dialect.toParameter(p.value)]));

    const audit = mapping.audit;
    const notOnInsert = new Set([audit.updatedAt, audit.updatedBy, audit.deletedAt, audit.deletedBy]);
    this.insertColumns = mapping.ownColumns.filter((column) => !notOnInsert.has(column));
    this.insertSql = `INSERT INTO ${table} (${this.insertColumns.map((c) => q(c.columnName)).join(", ")}) VALUES (${this.insertColumns.map((_, i) => dialect.placeholder(i)).join(", ")})`;

    const pk = mapping.primaryKey;
    const version = mapping.versionColumn;
    const notOnUpdate = new Set([pk, version, audit.createdAt, audit.createdBy, audit.deletedAt, audit.deletedBy]);
    this.updateColumns = mapping.ownColumns.filter((column) => !notOnUpdate.has(column));
    const guard = audit.deletedAt !== undefined ? ` AND ${q(audit.deletedAt.columnName)} IS NULL` : "";
    const keyWhere = (first: number): string =>
      ` WHERE ${q(pk.columnName)} = ${dialect.placeholder(first)}` +
      (version !== undefined ? ` AND ${q(version.columnName)} = ${dialect.placeholder(first + 1)}` : "");
    const bump = version !== undefined ? `${q(version.columnName)} = ${q(version.columnName)} + 1` : undefined;
    const sets = (columns: readonly ColumnMapping[], first = 0): string[] =>
      columns.map((c, i) => `${q(c.columnName)} = ${dialect.placeholder(first + i)}`);
    const updateSets = [...sets(this.updateColumns), ...(bump !== undefined ? [bump] : [])];
    this.updateSql = `UPDATE ${table} SET ${updateSets.join(", ")}${keyWhere(this.updateColumns.length)}${guard}`;
    this.deleteSql = `DELETE FROM ${table}${keyWhere(0)}`;
    if (audit.deletedAt !== undefined) {
      this.softDeleteColumns = [audit.deletedAt, ...(audit.deletedBy !== undefined ? [audit.deletedBy] : [])];
      const softSets = [...sets(this.softDeleteColumns), ...(bump !== undefined ? [bump] : [])];
      this.softDeleteSql = `UPDATE ${table} SET ${softSets.join(", ")}${keyWhere(this.softDeleteColumns.length)}${guard}`;
      this.undeleteColumns = [audit.updatedAt, audit.updatedBy].filter((c): c is ColumnMapping => c !== undefined);
      const cleared = [audit.deletedAt, audit.deletedBy]
        .filter((c): c is ColumnMapping => c !== undefined)
        .map((c) => `${q(c.columnName)} = NULL`);
      const undeleteSets = [...cleared, ...sets(this.undeleteColumns), ...(bump !== undefined ? [bump] : [])];
      this.undeleteSql = `UPDATE ${table} SET ${undeleteSets.join(", ")}${keyWhere(this.undeleteColumns.length)} AND ${q(audit.deletedAt.columnName)} IS NOT NULL`;
    } else {
      this.softDeleteColumns = [];
      this.undeleteColumns = [];
    }
  }

  /** The SQL naming a column in a SELECT of this entity (qualified when the entity has joins). */
  readonly columnSql: (column: ColumnMapping) => string;

  /** SELECT one row by primary key (with the entity's fixed WHERE and the soft-delete guard unless `includeDeleted`). */
  selectById(id: number, includeDeleted = false): CompiledStatement {
    let cached = this.#byId.get(includeDeleted);
    if (cached === undefined) {
      const parameters: unknown[] = [];
      const where = this.#where(
        [{ kind: "compare", column: this.mapping.primaryKey, operator: "=", value: 0 }],
        includeDeleted,
        parameters,
      );
      cached = { sql: `${this.selectFrom}${where}`, parameters };
      this.#byId.set(includeDeleted, cached);
    }
    // The id condition is rendered first, so its value is the first parameter; the fixed WHERE clause's follow.
    const parameters = cached.parameters.slice();
    parameters[0] = id;
    return { sql: cached.sql, parameters };
  }

  /** SELECT with a filter: conditions, order and page. */
  select(filter: Filter): CompiledStatement {
    const parameters: unknown[] = [];
    let sql = `${this.selectFrom}${this.#where(filter.conditions, filter.includeDeleted, parameters)}`;
    sql += this.#orderBy(filter.orderBy);
    if (filter.limit !== undefined || filter.offset > 0)
      sql += this.dialect.paginate(Math.max(0, filter.offset), filter.limit ?? Number.MAX_SAFE_INTEGER);
    return { sql, parameters };
  }

  /** SELECT COUNT(*) of the rows a filter matches (order and page ignored). */
  count(filter: Filter | undefined): CompiledStatement {
    const parameters: unknown[] = [];
    const from = this.selectFrom.slice(this.selectFrom.indexOf(" FROM "));
    const where = this.#where(filter?.conditions ?? [], filter?.includeDeleted ?? false, parameters);
    return { sql: `SELECT COUNT(*)${from}${where}`, parameters };
  }

  #where(conditions: readonly Condition[], includeDeleted: boolean, parameters: unknown[]): string {
    const named = new Map<string, unknown>();
    const counter = { next: 0 };
    const parts = conditions.map((condition) => this.#render(condition, named, counter));
    if (this.mapping.whereClause !== undefined) {
      for (const [name, value] of this.#whereClause) named.set(name, value);
      parts.push(`(${this.mapping.whereClause})`);
    }
    const deletedAt = this.mapping.audit.deletedAt;
    if (deletedAt !== undefined && !includeDeleted) parts.push(`${this.columnSql(deletedAt)} IS NULL`);
    if (parts.length === 0) return "";
    return ` WHERE ${compileNamedParameters(parts.join(" AND "), named, this.dialect, parameters)}`;
  }

  #render(condition: Condition, named: Map<string, unknown>, counter: { next: number }): string {
    const bind = (value: unknown, column?: ColumnMapping): string => {
      const name = `p${counter.next++}`;
      named.set(name, column !== undefined ? this.dialect.toDatabase(value, column.type) : this.dialect.toParameter(value));
      return `:${name}`;
    };
    switch (condition.kind) {
      case "compare":
        return `${this.columnSql(condition.column)} ${condition.operator} ${bind(condition.value, condition.operator.includes("LIKE") ? undefined : condition.column)}`;
      case "null":
        return `${this.columnSql(condition.column)} IS ${condition.negated ? "NOT " : ""}NULL`;
      case "in":
        if (condition.values.length === 0) return "1 = 0";
        return `${this.columnSql(condition.column)} IN (${condition.values.map((v) => bind(v, condition.column)).join(", ")})`;
      case "between":
        return `${this.columnSql(condition.column)} BETWEEN ${bind(condition.low, condition.column)} AND ${bind(condition.high, condition.column)}`;
      case "and":
      case "or": {
        if (condition.conditions.length === 0) return condition.kind === "and" ? "1 = 1" : "1 = 0";
        const glue = condition.kind === "and" ? " AND " : " OR ";
        return `(${condition.conditions.map((c) => this.#render(c, named, counter)).join(glue)})`;
      }
      case "not":
        return `NOT (${this.#render(condition.condition, named, counter)})`;
      case "sql":
        for (const [name, value] of Object.entries(condition.parameters)) named.set(name, this.dialect.toParameter(value));
        return `(${condition.sql})`;
    }
  }

  #orderBy(items: readonly OrderByItem[]): string {
    const pk = this.mapping.primaryKey;
    const list = items.map((item) => `${this.columnSql(item.column)} ${item.direction}`);
    if (!items.some((item) => item.column === pk)) list.push(`${this.columnSql(pk)} ASC`);
    return ` ORDER BY ${list.join(", ")}`;
  }
}

const cache = new WeakMap<EntityMapping, Map<Dialect, EntityStatements>>();

/** The statements of `mapping` on `dialect`, built once. */
export function statementsOf(mapping: EntityMapping, dialect: Dialect): EntityStatements {
  let byDialect = cache.get(mapping);
  if (byDialect === undefined) cache.set(mapping, (byDialect = new Map()));
  let statements = byDialect.get(dialect);
  if (statements === undefined) byDialect.set(dialect, (statements = new EntityStatements(mapping, dialect)));
  return statements;
}
