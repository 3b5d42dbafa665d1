import type { Condition, OrderByItem } from "../filter/condition.js";
import type { Filter } from "../filter/filter.js";
import type { RelationDeclaration } from "../mapping/entity-decorators.js";
import type { ColumnMapping, EntityMapping } from "../mapping/entity-mapping.js";
import type { Dialect } from "./dialect.js";
import { compileNamedParameters } from "./named-parameters.js";
import { type SoftCascade, softCascadeOf } from "./soft-cascade.js";
import { TenonError } from "../errors.js";
import { SqlMessages } from "./sql-messages.js";

/** SQL text and its positional parameters, ready for a connection. */
export interface CompiledStatement {
  /** The SQL in the engine's placeholder form. */
  readonly sql: string;
  /** The values, in placeholder order, already converted for the driver. */
  readonly parameters: unknown[];
}

/**
 * A SELECT by primary key, with the same query in the packed form (`EntityStatements.packedSelectFrom`) where the
 * entity has one: an engine may run `packedSql` instead (see `Connection.queryOneNow`).
 */
export interface KeyedSelect extends CompiledStatement {
  /** The same query with each row packed as one JSON array text, or undefined. */
  readonly packedSql: string | undefined;
}

/**
 * A filter's WHERE clause rendered once (empty text when nothing restricts the rows), so that the count
 * and the page of one read share it.
 */
export interface RenderedWhere {
  /** ` WHERE ...` in the engine's placeholder form, or "". */
  readonly sql: string;
  /** Its values, in placeholder order; a statement built on it appends its own after them. */
  readonly parameters: readonly unknown[];
}

/** What a delete of the parent does about one `@Relation`, with the child key as its one parameter. */
export interface RelationStatement {
  /** The relation. */
  readonly relation: RelationDeclaration;
  /** `DELETE` of the children when the relation cascades, otherwise `SELECT COUNT(*)` of them. */
  readonly sql: string;
  /** How the children follow a soft delete and an undelete of the parent, when they have soft delete too. */
  readonly soft: SoftCascade | undefined;
}

/** Where the values of one rendering go: each bound value becomes the next placeholder. */
class Binding {
  readonly parameters: unknown[];
  readonly #dialect: Dialect;

  /** @param dialect the engine's. @param parameters the values bound before (the next placeholder follows them). */
  constructor(dialect: Dialect, parameters: unknown[] = []) {
    this.#dialect = dialect;
    this.parameters = parameters;
  }

  /** Appends a value (already converted for the driver) and answers its placeholder. */
  bind(value: unknown): string {
    this.parameters.push(value);
    return this.#dialect.placeholder(this.parameters.length - 1);
  }

  /** Appends the application's SQL with `:name` parameters, its names bound to `values`. */
  named(sql: string, values: ReadonlyMap<string, unknown>): string {
    return compileNamedParameters(sql, values, this.#dialect, this.parameters);
  }
}

/**
 * The SQL of one entity on one engine. The fixed statements (by id, insert, update, delete) are built
 * once per mapping and dialect; selects with a filter are rendered per call, every value bound.
 *
 * For an entity with a `@TenantColumn`, the scoped statements (`statementsOf`) restrict every SELECT, count,
 * UPDATE and DELETE to one tenant: the fixed statements end with `AND <tenant> = ?`, whose value the caller
 * appends last to their parameters, and the filtered reads and `selectById` take the tenant as an argument.
 * `unscopedStatementsOf` answers the statements without that condition (an explicitly unscoped session).
 */
export class EntityStatements {
  /** The mapping. */
  readonly mapping: EntityMapping;
  /** The dialect. */
  readonly dialect: Dialect;
  /** Whether the statements restrict rows to one tenant (the entity has a `@TenantColumn` and these are the scoped ones). */
  readonly tenantScoped: boolean;
  /** Whether a selected column is an int64 or a decimal, so the driver must read integers exactly. */
  readonly exactIntegers: boolean;
  /** SELECT <columns> FROM <table> <joins>, without WHERE. */
  readonly selectFrom: string;
  /**
   * `selectFrom` with the columns packed as one JSON array text per row (`Dialect.packRow`), which some engines read
   * faster than the values one by one; undefined where the dialect does not pack, or where a column's values are
   * not JSON's (blobs, integers read exactly).
   */
  readonly packedSelectFrom: string | undefined;
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
  /** What a delete runs for each `@Relation`, in declaration order. */
  readonly relations: readonly RelationStatement[];
  /**
   * The columns of `updateColumns` that the engine reads back as written (`Dialect.readsBackAsWritten`): after
   * the UPDATE, the entity holds what a reload would read into them.
   */
  readonly knownAfterUpdate: readonly ColumnMapping[];
  /**
   * The columns the reload after an UPDATE by key reads (`rereadById`), in `mapping.columns` order: every
   * column but the key, the version (which the UPDATE raised by one) and `knownAfterUpdate`.
   */
  readonly rereadColumns: readonly ColumnMapping[];
  /** SELECT of `rereadColumns` (the key alone when there is none) FROM the table, without WHERE. */
  readonly #rereadFrom: string;
  #rereadById: CompiledStatement | undefined = undefined;
  /** `selectById` without and with deleted rows, rendered on first use. */
  #byIdLive: KeyedSelect | undefined = undefined;
  #byIdAll: KeyedSelect | undefined = undefined;
  readonly #byIdGuarded = new WeakMap<Condition, Map<boolean, KeyedSelect & { readonly tenantAt: number }>>();
  readonly #guardedSql = new WeakMap<Condition, Map<string, { readonly sql: string; readonly values: readonly unknown[] }>>();
  readonly #whereClause: Map<string, unknown>;

  /** Builds the fixed statements of `mapping` for `dialect`, restricted to one tenant unless `scoped` is false. */
  constructor(mapping: EntityMapping, dialect: Dialect, scoped = true) {
    this.mapping = mapping;
    this.dialect = dialect;
    const tenant = scoped ? mapping.tenantColumn : undefined;
    this.tenantScoped = tenant !== undefined;
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
    let from = ` FROM ${table}`;
    for (const join of mapping.joins) {
      const joined = join.alias === join.table ? q(join.table) : `${q(join.table)} ${q(join.alias)}`;
      const source = join.sourceTableOrAlias === undefined ? table : q(join.sourceTableOrAlias);
      from += ` ${join.kind} JOIN ${joined} ON ${q(join.alias)}.${q(join.targetColumn)} = ${source}.${q(join.sourceColumn)}`;
      // A joined table with a tenant column joins only rows of the entity's own tenant.
      for (const joinedTenant of mapping.joinedTenantColumns) {
        if (joinedTenant.alias?.toLowerCase() === join.alias.toLowerCase() && mapping.tenantColumn !== undefined)
          from += ` AND ${q(join.alias)}.${q(joinedTenant.columnName)} = ${table}.${q(mapping.tenantColumn.columnName)}`;
      }
    }
    this.selectFrom = `SELECT ${mapping.columns.map(columnSql).join(", ")}${from}`;
    // Decimals: SQLite stores them as scaled integers, which pass 2^53 from 16 digits on.
    this.exactIntegers = mapping.columns.some((column) => column.type.kind === "int64" || column.type.kind === "decimal");
    const packable = !this.exactIntegers && mapping.columns.every((column) => column.type.kind !== "blob");
    this.packedSelectFrom =
      packable && dialect.packRow !== undefined ? `SELECT ${dialect.packRow(mapping.columns.map(columnSql))}${from}` : undefined;
    this.#whereClause = new Map(mapping.whereClauseParameters.map((p) => [p.name, dialect.toParameter(p.value)]));

    const audit = mapping.audit;
    const notOnInsert = new Set([audit.updatedAt, audit.updatedBy, audit.deletedAt, audit.deletedBy]);
    this.insertColumns = mapping.ownColumns.filter((column) => !notOnInsert.has(column));
    this.insertSql = `INSERT INTO ${table} (${this.insertColumns.map((c) => q(c.columnName)).join(", ")}) VALUES (${this.insertColumns.map((_, i) => dialect.placeholder(i)).join(", ")})${dialect.insertKeyConflict(q(mapping.primaryKey.columnName))}`;

    const pk = mapping.primaryKey;
    const version = mapping.versionColumn;
    const notOnUpdate = new Set([pk, version, audit.createdAt, audit.createdBy, audit.deletedAt, audit.deletedBy, mapping.tenantColumn]);
    this.updateColumns = mapping.ownColumns.filter((column) => !notOnUpdate.has(column));
    const guard = audit.deletedAt !== undefined ? ` AND ${q(audit.deletedAt.columnName)} IS NULL` : "";
    const keyWidth = version !== undefined ? 2 : 1;
    // The tenant's placeholder follows every other one of the statement.
    const tenantGuard = (at: number): string => (tenant !== undefined ? ` AND ${q(tenant.columnName)} = ${dialect.placeholder(at)}` : "");
    this.tenantGuard = tenantGuard;
    const keyWhere = (first: number): string =>
      ` WHERE ${q(pk.columnName)} = ${dialect.placeholder(first)}` +
      (version !== undefined ? ` AND ${q(version.columnName)} = ${dialect.placeholder(first + 1)}` : "") +
      tenantGuard(first + keyWidth);
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
    const known = new Set(this.updateColumns.filter((column) => dialect.readsBackAsWritten?.(column.type) === true));
    this.knownAfterUpdate = this.updateColumns.filter((column) => known.has(column));
    this.rereadColumns = mapping.columns.filter((column) => column !== pk && column !== version && !known.has(column));
    const reread = this.rereadColumns.length > 0 ? this.rereadColumns : [pk];
    this.#rereadFrom = `SELECT ${reread.map(columnSql).join(", ")} FROM ${table}`;
    this.relations = mapping.relations.map((relation) => {
      const children = `FROM ${q(relation.table)} WHERE ${q(relation.foreignKey)} = ${dialect.placeholder(0)}`;
      return {
        relation,
        sql: relation.cascade ? `DELETE ${children}` : `SELECT COUNT(*) ${children}`,
        soft: softCascadeOf(mapping, relation, dialect),
      };
    });
  }

  /** INSERT of `rows` rows in one statement (the multi-row form of `insertSql`, same columns and conflict clause). */
  insertManySql(rows: number): string {
    const q = (name: string): string => this.dialect.quoteIdentifier(name);
    const width = this.insertColumns.length;
    const tuples = Array.from(
      { length: rows },
      (_, row) => `(${this.insertColumns.map((_, i) => this.dialect.placeholder(row * width + i)).join(", ")})`,
    );
    const columns = this.insertColumns.map((c) => q(c.columnName)).join(", ");
    return `INSERT INTO ${q(this.mapping.tableName)} (${columns}) VALUES ${tuples.join(", ")}${this.dialect.insertKeyConflict(q(this.mapping.primaryKey.columnName))}`;
  }

  /**
   * DELETE (or, for an entity with `@DeletedAt`, the soft delete's UPDATE) of `rows` rows by key and version
   * in one statement: the Deleted pair's values come first, then a key (and version) pair per row.
   */
  deleteManySql(rows: number): string {
    const q = (name: string): string => this.dialect.quoteIdentifier(name);
    const mapping = this.mapping;
    const version = mapping.versionColumn;
    const first = this.softDeleteSql !== undefined ? this.softDeleteColumns.length : 0;
    const width = version !== undefined ? 2 : 1;
    const keys = Array.from({ length: rows }, (_, row) => {
      const at = first + row * width;
      return version !== undefined
        ? `(${this.dialect.placeholder(at)}, ${this.dialect.placeholder(at + 1)})`
        : this.dialect.placeholder(at);
    });
    const key =
      version !== undefined ? `(${q(mapping.primaryKey.columnName)}, ${q(version.columnName)})` : q(mapping.primaryKey.columnName);
    const where = ` WHERE ${key} IN (${keys.join(", ")})${this.tenantGuard(first + rows * width)}`;
    const deletedAt = mapping.audit.deletedAt;
    if (this.softDeleteSql === undefined || deletedAt === undefined) return `DELETE FROM ${q(mapping.tableName)}${where}`;
    const bump = version !== undefined ? [`${q(version.columnName)} = ${q(version.columnName)} + 1`] : [];
    const sets = [...this.softDeleteColumns.map((c, i) => `${q(c.columnName)} = ${this.dialect.placeholder(i)}`), ...bump];
    return `UPDATE ${q(mapping.tableName)} SET ${sets.join(", ")}${where} AND ${q(deletedAt.columnName)} IS NULL`;
  }

  /**
   * UPDATE of `rows` rows of this entity in one statement: each column of `updateColumns` is set by a
   * `CASE <key> WHEN <id> THEN <value> ... END`, the version is raised by one, and the WHERE is the key and
   * version pairs (and the soft-delete guard) of `deleteManySql`. Parameters: per column, an id and value pair
   * per row; then a key (and version) pair per row.
   */
  updateManySql(rows: number): string {
    const q = (name: string): string => this.dialect.quoteIdentifier(name);
    const mapping = this.mapping;
    const key = q(mapping.primaryKey.columnName);
    const version = mapping.versionColumn;
    let at = 0;
    const next = (): string => this.dialect.placeholder(at++);
    const sets = this.updateColumns.map((column) => {
      const branches = Array.from({ length: rows }, () => `WHEN ${next()} THEN ${this.dialect.typedPlaceholder(next(), column.type)}`);
      return `${q(column.columnName)} = CASE ${key} ${branches.join(" ")} END`;
    });
    if (version !== undefined) sets.push(`${q(version.columnName)} = ${q(version.columnName)} + 1`);
    const keys = Array.from({ length: rows }, () => (version !== undefined ? `(${next()}, ${next()})` : next()));
    const keyColumns = version !== undefined ? `(${key}, ${q(version.columnName)})` : key;
    const deletedAt = mapping.audit.deletedAt;
    const guard = deletedAt !== undefined ? ` AND ${q(deletedAt.columnName)} IS NULL` : "";
    return `UPDATE ${q(mapping.tableName)} SET ${sets.join(", ")} WHERE ${keyColumns} IN (${keys.join(", ")})${guard}${this.tenantGuard(at)}`;
  }

  /** The SQL naming a column in a SELECT of this entity (qualified when the entity has joins). */
  readonly columnSql: (column: ColumnMapping) => string;

  /** ` AND <tenant> = <placeholder at>` of the scoped statements, "" otherwise. */
  readonly tenantGuard: (at: number) => string;

  /**
   * SELECT one row by primary key (with the entity's fixed WHERE and the soft-delete guard unless `includeDeleted`,
   * for scoped statements the tenant's condition with `tenant`, and the caller's `guard` of a policy when given).
   */
  selectById(id: number, includeDeleted = false, tenant?: string, guard?: Condition): KeyedSelect {
    if (guard !== undefined) {
      // Rendered once per guard (a caller's policy keeps its conditions): the id is the first value, the tenant the
      // one after the fixed WHERE clause's, and the guard's follow.
      let byDeleted = this.#byIdGuarded.get(guard);
      if (byDeleted === undefined) this.#byIdGuarded.set(guard, (byDeleted = new Map()));
      let guarded = byDeleted.get(includeDeleted);
      if (guarded === undefined) {
        const key: Condition = { kind: "compare", column: this.mapping.primaryKey, operator: "=", value: 0 };
        const where = this.#where([key], includeDeleted, "", guard);
        const tenantAt = this.tenantScoped ? where.parameters.length - 1 - this.#guardValues(guard, where.parameters.length) : -1;
        guarded = { ...this.#keyed(where), tenantAt };
        byDeleted.set(includeDeleted, guarded);
      }
      const parameters = guarded.parameters.slice();
      parameters[0] = id;
      if (guarded.tenantAt >= 0) parameters[guarded.tenantAt] = this.#tenantValue(tenant);
      return { sql: guarded.sql, packedSql: guarded.packedSql, parameters };
    }
    const cached = includeDeleted
      ? (this.#byIdAll ??= this.#keyed(this.#byKeyWhere(true)))
      : (this.#byIdLive ??= this.#keyed(this.#byKeyWhere(false)));
    // The id condition is rendered first, so its value is the first parameter; the fixed WHERE clause's follow,
    // and the tenant's is the last.
    const parameters = cached.parameters.slice();
    parameters[0] = id;
    if (this.tenantScoped) parameters[parameters.length - 1] = this.#tenantValue(tenant);
    return { sql: cached.sql, packedSql: cached.packedSql, parameters };
  }

  /** The WHERE of a read by key (the key's value 0, to be replaced), with the deleted rows or without. */
  #byKeyWhere(includeDeleted: boolean): RenderedWhere {
    return this.#where([{ kind: "compare", column: this.mapping.primaryKey, operator: "=", value: 0 }], includeDeleted, "", undefined);
  }

  /** The SELECT of the entity's rows with `where`, plain and packed. */
  #keyed(where: RenderedWhere): KeyedSelect {
    const packedFrom = this.packedSelectFrom;
    return {
      sql: `${this.selectFrom}${where.sql}`,
      packedSql: packedFrom === undefined ? undefined : `${packedFrom}${where.sql}`,
      parameters: where.parameters as unknown[],
    };
  }

  /**
   * SELECT of `rereadColumns` by primary key, deleted rows included, as `selectById(id, true, tenant)` selects
   * the row: the reload of a row just updated, which reads only what the entity does not hold already.
   */
  rereadById(id: number, tenant?: string): CompiledStatement {
    let cached = this.#rereadById;
    if (cached === undefined) {
      const key: Condition = { kind: "compare", column: this.mapping.primaryKey, operator: "=", value: 0 };
      const where = this.#where([key], true, "", undefined);
      cached = { sql: `${this.#rereadFrom}${where.sql}`, parameters: where.parameters as unknown[] };
      this.#rereadById = cached;
    }
    // As in `selectById`: the id is the first value, the tenant's the last.
    const parameters = cached.parameters.slice();
    parameters[0] = id;
    if (this.tenantScoped) parameters[parameters.length - 1] = this.#tenantValue(tenant);
    return { sql: cached.sql, parameters };
  }

  /**
   * The WHERE clause of a filter (its conditions, the fixed WHERE clause, the soft-delete guard, the tenant's
   * condition of scoped statements with `tenant`, the caller's `guard` of a policy when given), rendered once.
   */
  where(filter: Filter | undefined, tenant?: string, guard?: Condition): RenderedWhere {
    return this.#where(filter?.conditions ?? [], filter?.includeDeleted ?? false, tenant, guard);
  }

  /**
   * A statement by key of this entity (an UPDATE or DELETE whose text ends in its WHERE) with the caller's `guard`
   * of a policy ANDed to it, its values bound after the statement's own: the statement changes only rows the guard
   * lets through.
   */
  guarded(sql: string, parameters: unknown[], guard: Condition): CompiledStatement {
    // Rendered once per guard and statement (the statement's text fixes how many values precede the guard's).
    let bySql = this.#guardedSql.get(guard);
    if (bySql === undefined) this.#guardedSql.set(guard, (bySql = new Map()));
    let rendered = bySql.get(sql);
    if (rendered === undefined) {
      const binding = new Binding(this.dialect, new Array<unknown>(parameters.length));
      const text = `${sql} AND (${this.#render(guard, binding)})`;
      rendered = { sql: text, values: binding.parameters.slice(parameters.length) };
      bySql.set(sql, rendered);
    }
    for (const value of rendered.values) parameters.push(value);
    return { sql: rendered.sql, parameters };
  }

  /** How many values a guard binds (rendered alone after `first` others). */
  #guardValues(guard: Condition, first: number): number {
    const binding = new Binding(this.dialect, new Array<unknown>(first));
    this.#render(guard, binding);
    return binding.parameters.length - first;
  }

  /** SELECT with a filter: conditions, order and page. */
  select(filter: Filter, where: RenderedWhere = this.where(filter)): CompiledStatement {
    const parameters = where.parameters.slice();
    let sql = `${this.selectFrom}${where.sql}${this.#orderBy(filter.orderBy)}`;
    if (filter.limit !== undefined || filter.offset > 0) {
      // Bound, not written: every page size and start is the same statement to the engine's statement cache.
      const limit = this.dialect.placeholder(parameters.push(Math.trunc(filter.limit ?? Number.MAX_SAFE_INTEGER)) - 1);
      const offset = this.dialect.placeholder(parameters.push(Math.max(0, Math.trunc(filter.offset))) - 1);
      sql += this.dialect.paginate(limit, offset);
    }
    return { sql, parameters };
  }

  /**
   * The page of a filter with the number of rows it matches in one statement, so in one snapshot: the SELECT
   * of `select` with `COUNT(*) OVER ()` appended as the last column of every row. An empty page carries no
   * count.
   */
  selectCounted(filter: Filter, where: RenderedWhere = this.where(filter)): CompiledStatement {
    const page = this.select(filter, where);
    const from = page.sql.indexOf(" FROM ");
    return { sql: `${page.sql.slice(0, from)}, COUNT(*) OVER ()${page.sql.slice(from)}`, parameters: page.parameters };
  }

  /** SELECT COUNT(*) of the rows a filter matches (order and page ignored). */
  count(filter: Filter | undefined, where: RenderedWhere = this.where(filter)): CompiledStatement {
    const from = this.selectFrom.slice(this.selectFrom.indexOf(" FROM "));
    return { sql: `SELECT COUNT(*)${from}${where.sql}`, parameters: where.parameters.slice() };
  }

  #where(
    conditions: readonly Condition[],
    includeDeleted: boolean,
    tenant: string | undefined,
    guard: Condition | undefined,
  ): RenderedWhere {
    const binding = new Binding(this.dialect);
    const parts = conditions.map((condition) => this.#render(condition, binding));
    if (this.mapping.whereClause !== undefined) parts.push(`(${binding.named(this.mapping.whereClause, this.#whereClause)})`);
    const deletedAt = this.mapping.audit.deletedAt;
    if (deletedAt !== undefined && !includeDeleted) parts.push(`${this.columnSql(deletedAt)} IS NULL`);
    const tenantColumn = this.mapping.tenantColumn;
    if (this.tenantScoped && tenantColumn !== undefined)
      parts.push(`${this.columnSql(tenantColumn)} = ${binding.bind(this.#tenantValue(tenant))}`);
    if (guard !== undefined) parts.push(`(${this.#render(guard, binding)})`);
    return { sql: parts.length === 0 ? "" : ` WHERE ${parts.join(" AND ")}`, parameters: binding.parameters };
  }

  /** The tenant a scoped statement binds; none is a programming error of the caller, never a read of every tenant. */
  #tenantValue(tenant: string | undefined): string {
    if (tenant === undefined) throw new TenonError(SqlMessages.tenantMissing(this.mapping.name));
    return tenant;
  }

  #render(condition: Condition, binding: Binding): string {
    const bind = (value: unknown, column?: ColumnMapping): string =>
      binding.bind(column !== undefined ? this.dialect.toDatabase(value, column.type) : this.dialect.toParameter(value));
    switch (condition.kind) {
      case "compare":
        if (condition.operator === "LIKE" || condition.operator === "NOT LIKE") {
          const placeholder = bind(this.dialect.likePattern(String(condition.value)));
          return this.dialect.like(this.columnSql(condition.column), condition.operator, placeholder);
        }
        return `${this.columnSql(condition.column)} ${condition.operator} ${bind(condition.value, condition.column)}`;
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
        return `(${condition.conditions.map((c) => this.#render(c, binding)).join(glue)})`;
      }
      case "not":
        return `NOT (${this.#render(condition.condition, binding)})`;
      case "sql": {
        const values = new Map(Object.entries(condition.parameters).map(([name, value]) => [name, this.dialect.toParameter(value)]));
        return `(${binding.named(condition.sql, values)})`;
      }
    }
  }

  #orderBy(items: readonly OrderByItem[]): string {
    const pk = this.mapping.primaryKey;
    const nullsClause = !this.dialect.sortsNullsLow;
    const list = items.map((item) => {
      const sql = `${this.columnSql(item.column)} ${item.direction}`;
      if (!nullsClause || !item.column.type.nullable) return sql;
      return item.direction === "ASC" ? `${sql} NULLS FIRST` : `${sql} NULLS LAST`;
    });
    if (!items.some((item) => item.column === pk)) list.push(`${this.columnSql(pk)} ASC`);
    return ` ORDER BY ${list.join(", ")}`;
  }
}

const cache = new WeakMap<EntityMapping, Map<Dialect, EntityStatements>>();
const unscopedCache = new WeakMap<EntityMapping, Map<Dialect, EntityStatements>>();

/** The statements of `mapping` on `dialect`, built once; scoped to one tenant when the entity has a `@TenantColumn`. */
export function statementsOf(mapping: EntityMapping, dialect: Dialect): EntityStatements {
  // A request writes and reads one entity on one engine, mostly: the last answer is checked before the maps.
  const last = lastStatements;
  if (last !== undefined && last.mapping === mapping && last.dialect === dialect) return last;
  lastStatements = lookUpStatements(mapping, dialect);
  return lastStatements;
}

/** The statements `statementsOf` answered last. */
let lastStatements: EntityStatements | undefined;

/** `statementsOf` by its maps. */
function lookUpStatements(mapping: EntityMapping, dialect: Dialect): EntityStatements {
  let byDialect = cache.get(mapping);
  if (byDialect === undefined) cache.set(mapping, (byDialect = new Map()));
  let statements = byDialect.get(dialect);
  if (statements === undefined) byDialect.set(dialect, (statements = new EntityStatements(mapping, dialect)));
  return statements;
}

/** The statements of `mapping` on `dialect` without the tenant's condition (the same as `statementsOf` for an entity without one). */
export function unscopedStatementsOf(mapping: EntityMapping, dialect: Dialect): EntityStatements {
  if (mapping.tenantColumn === undefined) return statementsOf(mapping, dialect);
  let byDialect = unscopedCache.get(mapping);
  if (byDialect === undefined) unscopedCache.set(mapping, (byDialect = new Map()));
  let statements = byDialect.get(dialect);
  if (statements === undefined) byDialect.set(dialect, (statements = new EntityStatements(mapping, dialect, false)));
  return statements;
}
