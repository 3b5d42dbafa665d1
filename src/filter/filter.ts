import { TenonError } from "../errors.js";
import type { Condition, OrderByItem } from "./condition.js";
import { FilterMessages } from "./filter-messages.js";

const reservedParameter = /^p\d+$/i;

/**
 * What a select reads: conditions, order and page. Built by `FilterBuilder<T>` or by
 * the HTTP filter body; the application adds its own SQL conditions with `addWhere`.
 */
export class Filter {
  /** The conditions, ANDed. An OR group stays a single item, so it is parenthesized when rendered. */
  readonly conditions: Condition[] = [];
  /** The ORDER BY items. */
  readonly orderBy: OrderByItem[] = [];
  /** Rows to skip. */
  offset = 0;
  /** Rows to read at most; undefined reads all. */
  limit: number | undefined = undefined;
  /** Whether soft-deleted rows are read too (only the server side may set it). */
  includeDeleted = false;

  /**
   * ANDs an application condition written in SQL with `:name` parameters. The names `p0, p1, ...` belong
   * to the conditions Tenon builds and are refused here.
   */
  addWhere(sql: string, parameters: Readonly<Record<string, unknown>> = {}): this {
    for (const name of Object.keys(parameters)) {
      if (reservedParameter.test(name)) throw new TenonError(FilterMessages.reservedParameter(name));
    }
    this.conditions.push({ kind: "sql", sql, parameters });
    return this;
  }

  /** ANDs a condition tree. */
  add(condition: Condition): this {
    this.conditions.push(condition);
    return this;
  }
}
