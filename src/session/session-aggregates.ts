import { type AggregateQuery, averageExtraScale, type MetricValueType, metricValueType } from "../filter/aggregate-query.js";
import { type ColumnType, Type } from "../mapping/column-type.js";
import { EntityMapping } from "../mapping/entity-mapping.js";
import type { EntityClass } from "../mapping/column-type.js";
import { type AggregateStatement, aggregateStatement, groupValueType } from "../sql/aggregate-statements.js";
import type { Dialect } from "../sql/dialect.js";
import { decimalTextOfUnits, scaledUnitsOf } from "../values/decimal-text.js";
import type { SessionConnection } from "./session-connection.js";
import { sessionStatements, sessionTenant, type TenantSource } from "./tenant-scope.js";
import type { PolicyLookup } from "./policy-scope.js";

/** A value of an aggregate's answer: a group's value of its column's type, or a metric's (see `metricValueType`). */
export type AggregateValue = string | number | bigint | boolean | Date | null;

/** One group of an aggregate's answer: each group's and each metric's value by its name. */
export type AggregateRow = Record<string, AggregateValue>;

/** What an aggregate answers: one page of groups, how many groups the question has, and where the next page starts. */
export interface AggregateResult {
  /** The groups of the page, in order. */
  readonly rows: AggregateRow[];
  /** The groups the question has after `having`, every page counted (0 when the page is empty). */
  readonly groupCount: number;
  /** The order values of the page's last group when more groups follow: the `after` of the next page. */
  readonly next: readonly unknown[] | undefined;
}

/**
 * Runs an aggregate on a session's connection: the statement of `aggregateStatement` over the rows a select of
 * the same filter reads (tenant and soft delete included, and of an entity with a `@Policy` the rows its rules grant
 * the caller for `aggregate`), read back into the values `metricValueType` says.
 * One row more than the page is read, whose presence says that more groups follow.
 */
export async function runAggregate<T extends object>(
  dialect: Dialect,
  connection: SessionConnection,
  tenants: TenantSource & PolicyLookup,
  entityClass: EntityClass<T>,
  query: AggregateQuery,
): Promise<AggregateResult> {
  const prepared = prepareAggregate(dialect, tenants, entityClass, query);
  const open = connection.now() ?? (await connection.acquire());
  const rows = await open.query(prepared.statement.sql, prepared.statement.parameters, true);
  return readAggregate(dialect, query, prepared.statement, rows);
}

/**
 * The statement of an aggregate as `runAggregate` runs it (reading one group beyond `limit`), for a caller that
 * runs it another way (a stream); `readAggregateRow` reads its rows.
 */
export function prepareAggregate<T extends object>(
  dialect: Dialect,
  tenants: TenantSource & PolicyLookup,
  entityClass: EntityClass<T>,
  query: AggregateQuery,
): { readonly statement: AggregateStatement } {
  const mapping = EntityMapping.of(entityClass);
  const statements = sessionStatements(tenants, mapping, dialect);
  // A governed entity's rows are those its policy grants the caller for `aggregate`.
  const guard = mapping.hasPolicy ? tenants.callerPolicy(mapping)?.rows("aggregate") : undefined;
  const where = statements.where(query.filter, sessionTenant(tenants, mapping), guard);
  const paged = query.limit === undefined ? query : { ...query, limit: query.limit + 1 };
  return { statement: aggregateStatement(statements, paged, where) };
}

/** The answer of an aggregate from the rows its statement read (one beyond the page when more follow). */
export function readAggregate(dialect: Dialect, query: AggregateQuery, statement: AggregateStatement, rows: unknown[][]): AggregateResult {
  const limit = query.limit;
  const more = limit !== undefined && rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const answer = page.map((row) => readAggregateRow(dialect, query, statement, row));
  const groupCount = rows.length === 0 ? 0 : Number(rows[0][statement.layout.groupCount]);
  let next: unknown[] | undefined;
  if (more && page.length > 0) {
    const last = page[page.length - 1];
    const read = answer[answer.length - 1];
    next = statement.order.map((item, index) => {
      if (item.term.kind === "group") return read[query.groups[item.term.index].name];
      const metric = query.metrics[item.term.index];
      if (metric.fn !== "avg") return read[metric.name];
      // An average is ordered by the engine's own AVG, whose exact value the cursor carries.
      const raw = last[statement.layout.order[index]];
      return raw === null || raw === undefined ? null : typeof raw === "number" ? raw : String(raw);
    });
  }
  return { rows: answer, groupCount, next };
}

/** One row of an aggregate's statement as the group it answers. */
export function readAggregateRow(
  dialect: Dialect,
  query: AggregateQuery,
  statement: AggregateStatement,
  row: readonly unknown[],
): AggregateRow {
  const answer: AggregateRow = {};
  const layout = statement.layout;
  query.groups.forEach((group, index) => {
    answer[group.name] = dialect.fromDatabase(row[layout.groups[index]], groupValueType(group)) as AggregateValue;
  });
  query.metrics.forEach((metric, index) => {
    const columns = layout.metrics[index];
    const type = metricValueType(metric);
    answer[metric.name] =
      metric.fn === "avg"
        ? readAverage(dialect, type, metric.column?.type, row[columns[0]], row[columns[1]])
        : readMetric(dialect, type, row[columns[0]]);
  });
  return answer;
}

function readMetric(dialect: Dialect, type: MetricValueType, raw: unknown): AggregateValue {
  if (type.kind === "count") return raw === null || raw === undefined ? 0 : Number(raw);
  if (raw === null || raw === undefined) return null;
  switch (type.kind) {
    case "integer":
    case "float":
      return typeof raw === "number" ? raw : Number(raw);
    case "int64":
      return typeof raw === "bigint" ? raw : BigInt(typeof raw === "number" ? Math.trunc(raw) : String(raw).replace(/\.0*$/, ""));
    case "decimal":
      return dialect.fromDatabase(raw, decimalOfScale(type.scale)) as string;
    case "column":
      return dialect.fromDatabase(raw, type.column.type) as AggregateValue;
  }
}

/**
 * An average from the exact sum and the count of its values, the same on every engine: a decimal column's as
 * decimal text of the column's scale plus `averageExtraScale` digits, rounded half away from zero; any other
 * column's as the double nearest the sum divided by the count. NULL when no value was measured.
 */
function readAverage(
  dialect: Dialect,
  type: MetricValueType,
  column: ColumnType<unknown> | undefined,
  sum: unknown,
  count: unknown,
): AggregateValue {
  const values = Number(count ?? 0);
  if (sum === null || sum === undefined || values === 0) return null;
  if (type.kind !== "decimal") return Number(typeof sum === "bigint" ? sum : String(sum)) / values;
  const scale = column?.scale ?? 0;
  const units = scaledUnitsOf(dialect.fromDatabase(sum, decimalOfScale(scale)) as string, scale) ?? 0n;
  const divisor = BigInt(values);
  const scaled = (units < 0n ? -units : units) * 10n ** BigInt(averageExtraScale);
  const rounded = (2n * scaled + divisor) / (2n * divisor);
  return decimalTextOfUnits(units < 0n ? -rounded : rounded, scale + averageExtraScale);
}

/** A decimal type of `scale` as an engine answers a sum of it (at most 18 digits on SQLite's scaled integers). */
function decimalOfScale(scale: number): ColumnType<unknown> {
  return Type.decimal(18, scale) as ColumnType<unknown>;
}
