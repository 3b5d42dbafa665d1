/** How full one connection pool is at one moment. */
export interface PoolFigures {
  /** Connections lent to sessions. */
  readonly inUse: number;
  /** Open connections waiting in the pool. */
  readonly idle: number;
  /** Sessions waiting for a connection. */
  readonly waiting: number;
  /** With read replicas: what the routing saw and counted (reported as the `tenon_db_replica*`, reads and failover series). */
  readonly replicas?: ReplicaRoutingFigures;
}

/** What the read routing of a pool with replicas saw and counted since it opened. */
export interface ReplicaRoutingFigures {
  /** Read statements, by where they ran. */
  readonly reads: { readonly replica: number; readonly primary: number };
  /** Reads that carried a consistency token, by outcome: `replica` at once, `waited` for one, `primary` after the wait. */
  readonly consistencyWaits: { readonly replica: number; readonly waited: number; readonly primary: number };
  /** Times the primary was found on another server than before. */
  readonly failovers: number;
  /** Each server: its address, role, lag in seconds and whether reads go to it. */
  readonly servers: readonly {
    readonly address: string;
    readonly role: string;
    readonly lagSeconds: number;
    readonly inRotation: boolean;
  }[];
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
