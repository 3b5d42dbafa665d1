import type { ColumnMapping } from "../mapping/entity-mapping.js";

/** A comparison operator of a filter condition. */
export type ComparisonOperator = "=" | "<>" | "<" | "<=" | ">" | ">=" | "LIKE" | "NOT LIKE";

/**
 * A filter condition as a tree over mapped columns. Nothing in it is SQL text except `sql` nodes, which
 * only the application writes (`Filter.addWhere`); the statement builder renders the rest with bound
 * parameters named `p0, p1, ...`.
 */
export type Condition =
  | { readonly kind: "compare"; readonly column: ColumnMapping; readonly operator: ComparisonOperator; readonly value: unknown }
  | { readonly kind: "null"; readonly column: ColumnMapping; readonly negated: boolean }
  | { readonly kind: "in"; readonly column: ColumnMapping; readonly values: readonly unknown[] }
  | { readonly kind: "between"; readonly column: ColumnMapping; readonly low: unknown; readonly high: unknown }
  | { readonly kind: "and" | "or"; readonly conditions: readonly Condition[] }
  | { readonly kind: "not"; readonly condition: Condition }
  | { readonly kind: "sql"; readonly sql: string; readonly parameters: Readonly<Record<string, unknown>> };

/** One ORDER BY item. */
export interface OrderByItem {
  /** The column. */
  readonly column: ColumnMapping;
  /** The direction. */
  readonly direction: "ASC" | "DESC";
}
