/** The limits of a filter body and what only the server may decide. */
export class HttpFilterParameters {
  /** Default ceiling of a page. */
  static readonly defaultMaxLimit = 1000;
  /** Default ceiling of leaf conditions in `where`. */
  static readonly defaultMaxWhereConditions = 32;
  /** Default ceiling of `orderBy` items. */
  static readonly defaultMaxOrderByColumns = 8;
  /** The defaults: maxLimit 1000, maxWhereConditions 32, maxOrderByColumns 8, includeDeleted false. */
  static readonly defaults = new HttpFilterParameters();

  /** Ceiling of the page size of Select and SelectAll: 0 means the default, a negative value unlimited. */
  readonly maxLimit: number;
  /** Ceiling of leaf conditions in `where`: 0 means the default, a negative value unlimited. */
  readonly maxWhereConditions: number;
  /** Ceiling of `orderBy` items: 0 means the default, a negative value unlimited. */
  readonly maxOrderByColumns: number;
  /** Whether soft-deleted rows are read too. Only the server sets it; no body can. */
  readonly includeDeleted: boolean;

  /** Every option left out takes its default. */
  constructor(options: { maxLimit?: number; maxWhereConditions?: number; maxOrderByColumns?: number; includeDeleted?: boolean } = {}) {
    this.maxLimit = options.maxLimit ?? HttpFilterParameters.defaultMaxLimit;
    this.maxWhereConditions = options.maxWhereConditions ?? HttpFilterParameters.defaultMaxWhereConditions;
    this.maxOrderByColumns = options.maxOrderByColumns ?? HttpFilterParameters.defaultMaxOrderByColumns;
    this.includeDeleted = options.includeDeleted ?? false;
    Object.freeze(this);
  }

  /** The page ceiling in force: undefined when unlimited. */
  get effectiveMaxLimit(): number | undefined {
    return ceiling(this.maxLimit, HttpFilterParameters.defaultMaxLimit);
  }

  /** The condition ceiling in force: undefined when unlimited. */
  get effectiveMaxWhereConditions(): number | undefined {
    return ceiling(this.maxWhereConditions, HttpFilterParameters.defaultMaxWhereConditions);
  }

  /** The order-by ceiling in force: undefined when unlimited. */
  get effectiveMaxOrderByColumns(): number | undefined {
    return ceiling(this.maxOrderByColumns, HttpFilterParameters.defaultMaxOrderByColumns);
  }
}

function ceiling(value: number, fallback: number): number | undefined {
  if (value < 0) return undefined;
  return value === 0 ? fallback : value;
}
