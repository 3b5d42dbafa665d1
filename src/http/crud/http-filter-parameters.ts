/** The limits of a filter body and what only the server may decide. */
export class HttpFilterParameters {
  /** Default ceiling of a page. */
  static readonly defaultMaxLimit = 1000;
  /** Default ceiling of leaf conditions in `where`. */
  static readonly defaultMaxWhereConditions = 32;
  /** Default ceiling of `orderBy` items. */
  static readonly defaultMaxOrderByColumns = 8;
  /** Default ceiling of the groups an aggregate may have. */
  static readonly defaultMaxGroups = 10_000;
  /** The defaults: maxLimit 1000, maxWhereConditions 32, maxOrderByColumns 8, maxGroups 10,000, includeDeleted false. */
  static readonly defaults = new HttpFilterParameters();

  /** Ceiling of the page size of Select and SelectAll: 0 means the default, a negative value unlimited. */
  readonly maxLimit: number;
  /** Ceiling of leaf conditions in `where`: 0 means the default, a negative value unlimited. */
  readonly maxWhereConditions: number;
  /** Ceiling of `orderBy` items: 0 means the default, a negative value unlimited. */
  readonly maxOrderByColumns: number;
  /** Whether soft-deleted rows are read too. Only the server sets it; no body can. */
  readonly includeDeleted: boolean;
  /**
   * Ceiling of the groups an aggregate (`POST {base}/aggregate`) may have after its `having`, every page
   * counted: more answer 400. 0 means the default, a negative value unlimited.
   */
  readonly maxGroups: number;

  /** Every option left out takes its default. */
  constructor(
    options: {
      maxLimit?: number;
      maxWhereConditions?: number;
      maxOrderByColumns?: number;
      includeDeleted?: boolean;
      maxGroups?: number;
    } = {},
  ) {
    this.maxLimit = options.maxLimit ?? HttpFilterParameters.defaultMaxLimit;
    this.maxWhereConditions = options.maxWhereConditions ?? HttpFilterParameters.defaultMaxWhereConditions;
    this.maxOrderByColumns = options.maxOrderByColumns ?? HttpFilterParameters.defaultMaxOrderByColumns;
    this.includeDeleted = options.includeDeleted ?? false;
    this.maxGroups = options.maxGroups ?? HttpFilterParameters.defaultMaxGroups;
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

  /** The group ceiling of an aggregate in force: undefined when unlimited. */
  get effectiveMaxGroups(): number | undefined {
    return ceiling(this.maxGroups, HttpFilterParameters.defaultMaxGroups);
  }
}

function ceiling(value: number, fallback: number): number | undefined {
  if (value < 0) return undefined;
  return value === 0 ? fallback : value;
}
