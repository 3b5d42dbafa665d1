/** How full one connection pool is at one moment. */
export interface PoolFigures {
  /** Connections lent to sessions. */
  readonly inUse: number;
  /** Open connections waiting in the pool. */
  readonly idle: number;
  /** Sessions waiting for a connection. */
  readonly waiting: number;
}

/**
 * A pool the metrics report (`HttpMetricsOptions.pools`). The HTTP core knows nothing of databases: the ORM
 * side implements it (`DatabasePoolFigures` in `tenon/http`'s CRUD part, over any Tenon database), or the
 * application does for a pool of its own.
 */
export interface HttpPoolFigures {
  /** The `database` label of its series (`main`, `reports`); distinct per server. */
  readonly name: string;
  /** The figures now; read at every scrape, never on the request path. */
  figures(): PoolFigures;
}
