import type { CompiledStatement, EntityStatements, RenderedWhere } from "./entity-statements.js";

/**
 * The count of the rows a filter matches, read no further than `max` + 1 rows: `SELECT COUNT(*)` of a
 * subselect with a LIMIT, so the engine stops once it knows that more than `max` rows match.
 */
export function countAtMost(statements: EntityStatements, where: RenderedWhere, max: number): CompiledStatement {
  const dialect = statements.dialect;
  const parameters = where.parameters.slice();
  const limit = dialect.placeholder(parameters.push(max + 1) - 1);
  const offset = dialect.placeholder(parameters.push(0) - 1);
  const sql = `SELECT COUNT(*) FROM (${rowsOf(statements, where)}${dialect.paginate(limit, offset)}) ${dialect.quoteIdentifier("tenon_counted")}`;
  return { sql, parameters };
}

/**
 * The statement that asks the engine's planner how many rows a filter matches (`Dialect.rowEstimate`), or
 * undefined where the engine keeps no statistics.
 */
export function countEstimate(statements: EntityStatements, where: RenderedWhere): CompiledStatement | undefined {
  const estimate = statements.dialect.rowEstimate;
  if (estimate === undefined) return undefined;
  return { sql: estimate.explain(rowsOf(statements, where)), parameters: where.parameters.slice() };
}

/** `SELECT 1 FROM ... WHERE ...`: the rows of a filter, without their columns. */
function rowsOf(statements: EntityStatements, where: RenderedWhere): string {
  return `SELECT 1 AS ${statements.dialect.quoteIdentifier("tenon_row")}${statements.selectFrom.slice(statements.selectFrom.indexOf(" FROM "))}${where.sql}`;
}
