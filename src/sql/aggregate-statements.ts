import { TenonError } from "../errors.js";
import {
  type AggregateGroup,
  type AggregateMetric,
  type AggregateOrderItem,
  type AggregateQuery,
  aggregateOrder,
  averageExtraScale,
  type HavingCondition,
  type MetricValueType,
  metricValueType,
} from "../filter/aggregate-query.js";
import { Type, type ColumnType } from "../mapping/column-type.js";
import { type ColumnMapping, EntityMapping } from "../mapping/entity-mapping.js";
import type { Dialect } from "./dialect.js";
import type { CompiledStatement, EntityStatements, RenderedWhere } from "./entity-statements.js";
import { SqlMessages } from "./sql-messages.js";
import { scaledUnitsOf } from "../values/decimal-text.js";

/**
 * Where each part of an aggregate's answer is in a row its statement reads (column positions), so that the
 * session reads rows without knowing the SQL.
 */
export interface AggregateLayout {
  /** The column of each group's value. */
  readonly groups: readonly number[];
  /** The columns of each metric: one, or for `avg` the sum and the count of the values it divides. */
  readonly metrics: readonly (readonly number[])[];
  /**
   * The column of each order item's value (`AggregateStatement.order`), for the cursor of the next page: the
   * group's or metric's own column, or for an `avg` the engine's average, which its order compares.
   */
  readonly order: readonly number[];
  /** The column holding the number of groups the question has (after `having`, before the page). */
  readonly groupCount: number;
}

/** An aggregate's statement: the SQL, its parameters, and where each part of the answer is in a row. */
export interface AggregateStatement extends CompiledStatement {
  /** The positions of the answer's parts. */
  readonly layout: AggregateLayout;
  /** The complete order of the groups (the query's, then every group ascending): what `after` values follow. */
  readonly order: readonly AggregateOrderItem[];
}

/** The type a group's value has as the engine answers it (and as a cursor binds it). */
export function groupValueType(group: AggregateGroup): ColumnType<unknown> {
  if (group.truncate !== undefined) return truncatedDate;
  return group.through !== undefined ? group.column.type.orNull : group.column.type;
}

const truncatedDate = Type.date.orNull as ColumnType<unknown>;

/** A decimal sum's type of `scale` as the engines bind it (up to 18 digits, the most SQLite's scaled integers hold). */
function decimalSum(scale: number): ColumnType<unknown> {
  return Type.decimal(18, scale) as ColumnType<unknown>;
}

/** The SQL names Tenon gives the columns of an aggregate and the tables it joins (never a text of the client). */
const names = {
  group: (index: number) => `tenon_g${index}`,
  metric: (index: number) => `tenon_m${index}`,
  count: (index: number) => `tenon_n${index}`,
  average: (index: number) => `tenon_o${index}`,
  groupCount: "tenon_groups",
  reference: (index: number) => `tenon_r${index}`,
  referenceKey: "tenon_key",
  referenceTenant: "tenon_tenant",
  referenceValue: (index: number) => `tenon_v${index}`,
  answer: "tenon_aggregate",
};

/** One `Lazy` reference joined for its columns: the derived table's alias and the columns it exposes. */
interface JoinedReference {
  readonly alias: string;
  readonly columns: ColumnMapping[];
}

/**
 * The statement of an aggregate (docs/crud.md "Aggregates"): the rows of `where` (a select's WHERE of the same
 * filter: conditions, fixed WHERE clause, soft delete, tenant), joined to each referenced entity a group reads
 * (LEFT JOIN, so a row whose reference is empty or soft-deleted groups under NULL), grouped, measured, filtered
 * by HAVING, with the number of groups beside each; around it the cursor's condition, the order (NULL lowest)
 * and the page. Every value is bound; the only names are the mapping's and Tenon's own.
 */
export function aggregateStatement(statements: EntityStatements, query: AggregateQuery, where: RenderedWhere): AggregateStatement {
  const dialect = statements.dialect;
  const q = (name: string): string => dialect.quoteIdentifier(name);
  const parameters = where.parameters.slice();
  const bind = (value: unknown): string => dialect.placeholder(parameters.push(value) - 1);
  const mapping = statements.mapping;
  const table = q(mapping.tableName);
  const baseColumn = (column: ColumnMapping): string =>
    mapping.isJoinEntity ? statements.columnSql(column) : `${table}.${q(column.columnName)}`;

  let from = statements.selectFrom.slice(statements.selectFrom.indexOf(" FROM "));
  const references = new Map<ColumnMapping, JoinedReference>();
  for (const group of query.groups) {
    if (group.through === undefined) continue;
    let reference = references.get(group.through);
    if (reference === undefined) references.set(group.through, (reference = { alias: names.reference(references.size), columns: [] }));
    if (!reference.columns.includes(group.column)) reference.columns.push(group.column);
  }
  for (const [through, reference] of references) {
    from += referenceJoin(dialect, mapping, through, reference, query.filter.includeDeleted, baseColumn);
  }

  const groupSql = query.groups.map((group) => {
    const reference = group.through === undefined ? undefined : references.get(group.through);
    const column =
      reference === undefined
        ? statements.columnSql(group.column)
        : `${q(reference.alias)}.${q(names.referenceValue(reference.columns.indexOf(group.column)))}`;
    return group.truncate === undefined ? column : dialect.truncateDate(column, group.truncate);
  });
  const measured = (metric: AggregateMetric): string => (metric.column === undefined ? "*" : statements.columnSql(metric.column));
  for (const metric of query.metrics) {
    const fits = metric.column === undefined || (metric.fn !== "sum" && metric.fn !== "avg") || dialect.sumsExactly(metric.column.type);
    if (!fits) throw new TenonError(SqlMessages.sumNotExact(mapping.name, metric.column?.property ?? "", dialect.name));
  }
  const metricSql = (metric: AggregateMetric): string => {
    switch (metric.fn) {
      case "count":
        return `COUNT(${measured(metric)})`;
      case "countDistinct":
        return `COUNT(DISTINCT ${measured(metric)})`;
      case "avg":
        return `SUM(${measured(metric)})`;
      case "sum":
        return `SUM(${measured(metric)})`;
      case "min":
        return `MIN(${measured(metric)})`;
      case "max":
        return `MAX(${measured(metric)})`;
    }
  };

  const order = aggregateOrder(query);
  const averagesOrdered = new Set(order.filter((item) => item.term.kind === "metric").map((item) => item.term.index));
  const inner: string[] = [];
  const outer: string[] = [];
  const select = (sql: string, alias: string): number => {
    inner.push(`${sql} AS ${q(alias)}`);
    outer.push(q(alias));
    return outer.length - 1;
  };
  const groupColumns = groupSql.map((sql, index) => select(sql, names.group(index)));
  const metricColumns = query.metrics.map((metric, index) => {
    const first = select(metricSql(metric), names.metric(index));
    return metric.fn === "avg" ? [first, select(`COUNT(${measured(metric)})`, names.count(index))] : [first];
  });
  const averageColumns = new Map<number, number>();
  query.metrics.forEach((metric, index) => {
    if (metric.fn === "avg" && averagesOrdered.has(index))
      averageColumns.set(index, select(averageOrder(dialect, metric, measured(metric)), names.average(index)));
  });
  const groupCount = select("COUNT(*) OVER ()", names.groupCount);

  let sql = `SELECT ${inner.join(", ")}${from}${where.sql}`;
  if (groupSql.length > 0) sql += ` GROUP BY ${groupSql.join(", ")}`;
  const operand = new MetricOperands(dialect, bind);
  const having = query.having.map((condition) => renderHaving(condition, query.metrics, metricSql, measured, operand));
  if (having.length > 0) sql += ` HAVING ${having.join(" AND ")}`;

  // The order's column names, and how a cursor's value of each is bound.
  const orderColumns = order.map((item) => {
    if (item.term.kind === "group") return { alias: names.group(item.term.index), column: groupColumns[item.term.index] };
    const average = averageColumns.get(item.term.index);
    if (average !== undefined) return { alias: names.average(item.term.index), column: average };
    return { alias: names.metric(item.term.index), column: metricColumns[item.term.index][0] };
  });
  sql = `SELECT ${outer.join(", ")} FROM (${sql}) ${q(names.answer)}`;
  if (query.after !== undefined) {
    const bindAfter = (index: number, value: unknown): string => {
      const term = order[index].term;
      if (term.kind === "group") return bind(dialect.toDatabase(value, groupValueType(query.groups[term.index])));
      if (averageColumns.has(term.index)) return dialect.exactNumber(bind(value));
      return operand.of(metricValueType(query.metrics[term.index]), value);
    };
    const condition = cursorCondition(
      order.map((item, index) => ({ sql: `${q(names.answer)}.${q(orderColumns[index].alias)}`, direction: item.direction })),
      query.after,
      bindAfter,
    );
    sql += ` WHERE ${condition ?? "1 = 0"}`;
  }
  const nullsClause = !dialect.sortsNullsLow;
  const orderSql = order.map((item, index) => {
    const column = `${q(names.answer)}.${q(orderColumns[index].alias)} ${item.direction}`;
    if (!nullsClause) return column;
    return item.direction === "ASC" ? `${column} NULLS FIRST` : `${column} NULLS LAST`;
  });
  if (orderSql.length > 0) sql += ` ORDER BY ${orderSql.join(", ")}`;
  if (query.limit !== undefined) {
    const limit = bind(Math.trunc(query.limit));
    sql += dialect.paginate(limit, bind(0));
  }
  return {
    sql,
    parameters,
    order,
    layout: { groups: groupColumns, metrics: metricColumns, order: orderColumns.map((each) => each.column), groupCount },
  };
}

/**
 * What an order by an average compares: the value the answer shows (`readAverage` of the session), so that the
 * order agrees with the answered values on every engine. A decimal's average rounded to its scale plus
 * `averageExtraScale` digits (in the SQL's own units on an engine that holds decimals as units); any other
 * column's as the double nearest the sum divided by the count. NULL where no value was measured.
 */
function averageOrder(dialect: Dialect, metric: AggregateMetric, column: string): string {
  const type = metric.column?.type;
  const double = dialect.schema?.columnType(Type.float as ColumnType<unknown>) ?? "REAL";
  if (type?.kind !== "decimal") return `CAST(SUM(${column}) AS ${double}) / COUNT(${column})`;
  if (dialect.decimalUnits) return `ROUND(CAST(SUM(${column}) AS ${double}) / COUNT(${column}), ${averageExtraScale})`;
  return `ROUND(SUM(${column}) / COUNT(${column}), ${(type.scale ?? 0) + averageExtraScale})`;
}

/**
 * The LEFT JOIN of the entity a `Lazy` reference points to, as a derived table whose columns have Tenon's own
 * names (so the entity's unqualified column names, an `addWhere`'s included, stay unambiguous): its key, the
 * columns grouped by, its tenant (which must be the row's own); soft-deleted rows left out unless the filter
 * includes them.
 */
function referenceJoin(
  dialect: Dialect,
  mapping: EntityMapping,
  through: ColumnMapping,
  reference: JoinedReference,
  includeDeleted: boolean,
  baseColumn: (column: ColumnMapping) => string,
): string {
  const q = (name: string): string => dialect.quoteIdentifier(name);
  const target = EntityMapping.of((through.type.target as NonNullable<typeof through.type.target>)());
  const columns = [
    `${q(target.primaryKey.columnName)} AS ${q(names.referenceKey)}`,
    ...reference.columns.map((column, index) => `${q(column.columnName)} AS ${q(names.referenceValue(index))}`),
  ];
  const tenant = target.tenantColumn !== undefined && mapping.tenantColumn !== undefined;
  if (tenant && target.tenantColumn !== undefined) columns.push(`${q(target.tenantColumn.columnName)} AS ${q(names.referenceTenant)}`);
  const deletedAt = target.audit.deletedAt;
  const guard = deletedAt !== undefined && !includeDeleted ? ` WHERE ${q(deletedAt.columnName)} IS NULL` : "";
  const alias = q(reference.alias);
  let join = ` LEFT JOIN (SELECT ${columns.join(", ")} FROM ${q(target.tableName)}${guard}) ${alias} ON ${alias}.${q(names.referenceKey)} = ${baseColumn(through)}`;
  if (tenant && mapping.tenantColumn !== undefined)
    join += ` AND ${alias}.${q(names.referenceTenant)} = ${baseColumn(mapping.tenantColumn)}`;
  return join;
}

/** How a value of a metric's type is bound where the metric's SQL result is compared with it. */
class MetricOperands {
  readonly #dialect: Dialect;
  readonly #bind: (value: unknown) => string;

  constructor(dialect: Dialect, bind: (value: unknown) => string) {
    this.#dialect = dialect;
    this.#bind = bind;
  }

  /** The operand a metric of `type` compares with `value` (of that type). */
  of(type: MetricValueType, value: unknown): string {
    const dialect = this.#dialect;
    switch (type.kind) {
      case "count":
      case "integer":
      case "float":
        return this.#bind(dialect.toParameter(value));
      case "int64":
        return dialect.exactNumber(this.#bind(dialect.toParameter(value)));
      case "decimal":
        return dialect.exactNumber(this.#bind(dialect.toDatabase(value, decimalSum(type.scale))));
      case "column":
        return type.column.type.kind === "decimal"
          ? dialect.exactNumber(this.#bind(dialect.toDatabase(value, type.column.type)))
          : this.#bind(dialect.toDatabase(value, type.column.type));
    }
  }

  /** The operand an average's SUM is compared with, times the COUNT of its values: the average `value` itself. */
  ofAverage(_metric: AggregateMetric, value: unknown): string {
    const dialect = this.#dialect;
    return dialect.exactNumber(this.#bind(typeof value === "bigint" ? value.toString() : value));
  }

  /**
   * `SUM op v * COUNT` for an average of a decimal column on an engine that holds decimals as units: both sides
   * in units of 10^-(scale + averageExtraScale), integers, so the comparison is exact (up to the engine's
   * 64-bit integers).
   */
  averageInUnits(sum: string, operator: string, count: string, metric: AggregateMetric, value: unknown): string | undefined {
    const type = metric.column?.type;
    if (type?.kind !== "decimal" || !this.#dialect.decimalUnits) return undefined;
    const units = scaledUnitsOf(String(value), (type.scale ?? 0) + averageExtraScale) ?? 0n;
    return `${sum} * ${10 ** averageExtraScale} ${operator} ${this.#bind(this.#dialect.toParameter(units))} * ${count}`;
  }
}

/**
 * A HAVING condition in SQL. An average is compared exactly without dividing: `avg op v` is `SUM op v * COUNT`
 * (the count of its values is positive wherever the average is not NULL).
 */
function renderHaving(
  condition: HavingCondition,
  metrics: readonly AggregateMetric[],
  metricSql: (metric: AggregateMetric) => string,
  measured: (metric: AggregateMetric) => string,
  operand: MetricOperands,
): string {
  const recurse = (child: HavingCondition): string => renderHaving(child, metrics, metricSql, measured, operand);
  switch (condition.kind) {
    case "and":
    case "or": {
      if (condition.conditions.length === 0) return condition.kind === "and" ? "1 = 1" : "1 = 0";
      return `(${condition.conditions.map(recurse).join(condition.kind === "and" ? " AND " : " OR ")})`;
    }
    case "null":
      return `${metricSql(metrics[condition.metric])} IS ${condition.negated ? "NOT " : ""}NULL`;
    case "compare":
    case "in": {
      const metric = metrics[condition.metric];
      const sql = metricSql(metric);
      const values = condition.kind === "in" ? condition.values : [condition.value];
      const operator = condition.kind === "in" ? "=" : condition.operator;
      if (metric.fn === "avg") {
        const count = `COUNT(${measured(metric)})`;
        const compared = values.map(
          (value) =>
            operand.averageInUnits(sql, operator, count, metric, value) ??
            `${sql} ${operator} ${operand.ofAverage(metric, value)} * ${count}`,
        );
        return compared.length === 1 ? compared[0] : `(${compared.join(" OR ")})`;
      }
      const type = metricValueType(metric);
      if (condition.kind === "compare") return `${sql} ${operator} ${operand.of(type, condition.value)}`;
      if (values.length === 0) return "1 = 0";
      return `${sql} IN (${values.map((value) => operand.of(type, value)).join(", ")})`;
    }
  }
}

/**
 * "Comes after these values in this order" over the answer's columns, NULL the lowest value (as in
 * `keysetCondition` of the filter layer): `(c1 > v1) OR (c1 = v1 AND c2 > v2) ...`. Undefined when nothing can
 * follow. Values are bound in the order the text names them.
 */
function cursorCondition(
  items: readonly { readonly sql: string; readonly direction: "ASC" | "DESC" }[],
  values: readonly unknown[],
  bind: (index: number, value: unknown) => string,
): string | undefined {
  const branches: string[] = [];
  for (let i = 0; i < items.length; i++) {
    const value = values[i];
    const item = items[i];
    if (item.direction === "DESC" && value === null) continue;
    const parts: string[] = [];
    for (let j = 0; j < i; j++) parts.push(values[j] === null ? `${items[j].sql} IS NULL` : `${items[j].sql} = ${bind(j, values[j])}`);
    if (item.direction === "ASC") parts.push(value === null ? `${item.sql} IS NOT NULL` : `${item.sql} > ${bind(i, value)}`);
    else parts.push(`(${item.sql} < ${bind(i, value)} OR ${item.sql} IS NULL)`);
    branches.push(parts.length === 1 ? parts[0] : `(${parts.join(" AND ")})`);
  }
  if (branches.length === 0) return undefined;
  return branches.length === 1 ? branches[0] : `(${branches.join(" OR ")})`;
}
