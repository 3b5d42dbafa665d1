import { performance } from "node:perf_hooks";
import type { Registry } from "prom-client";
import { TransientDatabaseError } from "../../errors.js";
import type { StatementObserver } from "../../observation/statement-observer.js";
import type { HttpRequest } from "../exchange/http-request.js";
import type { HttpResponse } from "../exchange/http-response.js";
import type { HttpPoolFigures, ReplicaRoutingFigures } from "./pool-figures.js";
import type { RequestObservation } from "../exchange/request-observation.js";
import { type CollectedMetric, collectedMetric, type HistogramSeries, SeriesHistogram } from "./series-histogram.js";

/** Latency buckets in seconds: 1 ms to 10 s. */
const latencyBuckets: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Statement buckets in seconds: 0.1 ms to 5 s. */
const statementBuckets: readonly number[] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];

/** The method labels; anything else is `other`, so that invented methods cannot add series. */
const knownMethods: readonly string[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
/**
 * The position of each of `knownMethods`, for the method label: a map lookup, not `indexOf`, whose search compares
 * strings in V8's runtime (some 190 instructions a request).
 */
const methodIndexes = new Map(knownMethods.map((method, index) => [method, index]));

/** The route label of a request that matched no route. */
export const unmatchedRoute = "<unmatched>";

/** A kind of statement, by the first keyword of its SQL text. @internal */
export interface StatementKind {
  /** Its position in `statementKinds`. */
  readonly index: number;
  /** Its label: select, insert, update, delete, other. */
  readonly name: string;
  /** Its `db.operation.name` (SELECT...), undefined for `other`. */
  readonly operation: string | undefined;
}

/** The statement kinds counted. @internal */
export const statementKinds: readonly StatementKind[] = ["select", "insert", "update", "delete", "other"].map((name, index) => ({
  index,
  name,
  operation: name === "other" ? undefined : name.toUpperCase(),
}));
const [selectKind, insertKind, updateKind, deleteKind, otherKind] = statementKinds;

/** Kinds of the statement texts seen, bounded: a session runs the same few texts again and again. */
const kinds = new Map<string, StatementKind>();
const maxRemembered = 4096;
/** The text last asked about, and its kind. */
let lastSql = "";
let lastKind: StatementKind = otherKind;

/** The kind of a statement from its first keyword (`WITH` reads as select). @internal */
export function statementKindOf(sql: string): StatementKind {
  // A session runs the same text object again and again: compared by identity first, before the map hashes it.
  if (sql === lastSql) return lastKind;
  let kind = kinds.get(sql);
  if (kind === undefined) {
    kind = kindFromText(sql);
    if (kinds.size < maxRemembered) kinds.set(sql, kind);
  }
  lastSql = sql;
  lastKind = kind;
  return kind;
}

function kindFromText(sql: string): StatementKind {
  let i = 0;
  while (i < sql.length && sql.charCodeAt(i) <= 32) i++;
  const word = sql.slice(i, i + 6).toLowerCase();
  if (word === "select" || word.startsWith("with")) return selectKind;
  if (word === "insert") return insertKind;
  if (word === "update") return updateKind;
  if (word === "delete") return deleteKind;
  return otherKind;
}

/** A request series: latency, and the body bytes in and out. */
interface RequestSeries {
  readonly latency: HistogramSeries;
  bytesIn: number;
  bytesOut: number;
}

/**
 * The kinds a statement token can name: the token of a statement in flight is one number, its start in whole
 * microseconds times this plus its kind's index (exact while below 2^53, some 35 years of uptime), so that a
 * statement costs no object of the recorder's own.
 */
const tokenKinds = 8;

/** Where the recorder reads the figures that exist without it. @internal */
export interface MetricsSources {
  /** Requests in flight now. */
  readonly inFlight: () => number;
  /** The log writer's name, queue depth and discards; undefined without a writer. */
  readonly log: (() => { readonly writer: string; readonly queueDepth: number; readonly discarded: number }) | undefined;
  /** The pools to report. */
  readonly pools: readonly HttpPoolFigures[];
}

/**
 * The Prometheus metrics of one server (docs/operations.md lists the series): requests by method, route
 * template and status, their latency and body bytes, requests in flight, statements by kind, retries and
 * transient failures, pools, and the log queue. Figures that exist anyway (in flight, pools, log queue)
 * are read at scrape time; the request path updates series found once per route, method and status.
 * @internal
 */
export class MetricsRecorder implements StatementObserver {
  /** The registry the exposition is rendered from. */
  readonly registry: Registry;
  readonly #requests: SeriesHistogram;
  /** route -> (method index * 1000 + status) -> series */
  readonly #requestSeries = new Map<string, Map<number, RequestSeries>>();
  /** By `StatementKind.index`. */
  readonly #statementSeries: readonly HistogramSeries[];
  /** By `StatementKind.index`. */
  readonly #statementFailures: number[] = statementKinds.map(() => 0);
  #transientFailures = 0;
  #retries = 0;
  /** The series the last request went to, with its route and key. */
  #lastSeries: { readonly route: string; readonly key: number; readonly series: RequestSeries } | undefined;

  constructor(registry: Registry, sources: MetricsSources) {
    this.registry = registry;
    this.#requests = new SeriesHistogram(
      "tenon_http_request_duration_seconds",
      "HTTP requests: time from the body read to the answer written, by method, route template and status.",
      latencyBuckets,
    );
    const statements = new SeriesHistogram(
      "tenon_db_statement_duration_seconds",
      "SQL statements run by sessions, by kind (select, insert, update, delete, other).",
      statementBuckets,
    );
    this.#statementSeries = statementKinds.map((kind) => statements.series({ kind: kind.name }));
    const requestSeries = (): { route: string; key: number; series: RequestSeries }[] => {
      const all: { route: string; key: number; series: RequestSeries }[] = [];
      for (const [route, byKey] of this.#requestSeries) for (const [key, series] of byKey) all.push({ route, key, series });
      return all;
    };
    const metrics = [
      this.#requests.metric,
      collectedMetric(
        "tenon_http_request_body_bytes_total",
        "Request body bytes received, by method, route template and status.",
        "counter",
        () => requestSeries().map(({ series }) => ({ labels: series.latency.labels, value: series.bytesIn })),
      ),
      collectedMetric(
        "tenon_http_response_body_bytes_total",
        "Response body bytes sent, by method, route template and status.",
        "counter",
        () => requestSeries().map(({ series }) => ({ labels: series.latency.labels, value: series.bytesOut })),
      ),
      collectedMetric("tenon_http_requests_in_flight", "Requests between arrival and the disposal of their context.", "gauge", () => [
        { labels: {}, value: sources.inFlight() },
      ]),
      statements.metric,
      collectedMetric("tenon_db_statement_failures_total", "SQL statements that failed, by kind.", "counter", () =>
        statementKinds.map((kind) => ({ labels: { kind: kind.name }, value: this.#statementFailures[kind.index] })),
      ),
      collectedMetric(
        "tenon_db_transient_failures_total",
        "Statements that failed with a transient database failure (connection lost, server away, conflict, timeout).",
        "counter",
        () => [{ labels: {}, value: this.#transientFailures }],
      ),
      collectedMetric("tenon_db_retries_total", "Units of work run again after a transient failure.", "counter", () => [
        { labels: {}, value: this.#retries },
      ]),
      collectedMetric("tenon_db_pool_connections", "Pool connections by state (in_use, idle), per database.", "gauge", () =>
        sources.pools.flatMap((pool) => {
          const figures = pool.figures();
          return [
            { labels: { database: pool.name, state: "in_use" }, value: figures.inUse },
            { labels: { database: pool.name, state: "idle" }, value: figures.idle },
          ];
        }),
      ),
      collectedMetric("tenon_db_pool_waiting", "Sessions waiting for a pool connection, per database.", "gauge", () =>
        sources.pools.map((pool) => ({ labels: { database: pool.name }, value: pool.figures().waiting })),
      ),
      ...replicaMetrics(sources.pools),
    ];
    const log = sources.log;
    if (log !== undefined) {
      metrics.push(
        collectedMetric("tenon_log_queue_depth", "Log entries waiting for the writer, per writer.", "gauge", () => {
          const figures = log();
          return [{ labels: { writer: figures.writer }, value: figures.queueDepth }];
        }),
        collectedMetric("tenon_log_discarded_total", "Log entries rejected by a full queue, per writer.", "counter", () => {
          const figures = log();
          return [{ labels: { writer: figures.writer }, value: figures.discarded }];
        }),
      );
    }
    for (const metric of metrics) registry.registerMetric(metric as never);
  }

  /** Counts one answered request. */
  recordRequest(observation: RequestObservation, request: HttpRequest, response: HttpResponse): void {
    const seconds = (performance.now() - observation.start) / 1000;
    const route = observation.route === "" ? unmatchedRoute : observation.route;
    const methodIndex = methodIndexes.get(request.method) ?? knownMethods.length;
    const status = response.statusCode;
    const key = methodIndex * 1000 + status;
    // Requests come in runs of the same route, method and status: the series of the last one is kept at hand.
    const last = this.#lastSeries;
    let series: RequestSeries | undefined;
    if (last !== undefined && last.route === route && last.key === key) series = last.series;
    else {
      series = this.#seriesOf(route, key, methodIndex, status);
      this.#lastSeries = { route, key, series };
    }
    series.latency.observe(seconds);
    series.bytesIn += request.body.length;
    series.bytesOut += response.contentLength;
  }

  /** The series of a route, method and status (`key`: method index * 1000 + status), made on first use. */
  #seriesOf(route: string, key: number, methodIndex: number, status: number): RequestSeries {
    let byKey = this.#requestSeries.get(route);
    if (byKey === undefined) {
      byKey = new Map();
      this.#requestSeries.set(route, byKey);
    }
    let series = byKey.get(key);
    if (series === undefined) {
      const method = methodIndex < knownMethods.length ? knownMethods[methodIndex] : "other";
      series = { latency: this.#requests.series({ method, route, status: String(status) }), bytesIn: 0, bytesOut: 0 };
      byKey.set(key, series);
    }
    return series;
  }

  /** @inheritdoc */
  statementStarted(sql: string): unknown {
    return Math.floor(performance.now() * 1000) * tokenKinds + statementKindOf(sql).index;
  }

  /** @inheritdoc */
  statementEnded(token: unknown, error: unknown): void {
    const kind = (token as number) % tokenKinds;
    const startMicroseconds = ((token as number) - kind) / tokenKinds;
    this.#statementSeries[kind].observe((performance.now() * 1000 - startMicroseconds) / 1e6);
    if (error !== undefined) {
      this.#statementFailures[kind]++;
      if (error instanceof TransientDatabaseError) this.#transientFailures++;
    }
  }

  /** @inheritdoc */
  retried(): void {
    this.#retries++;
  }
}

/** The figures of the pools that have read replicas, with their `database` label. */
function routedPools(pools: readonly HttpPoolFigures[]): { readonly database: string; readonly figures: ReplicaRoutingFigures }[] {
  const routed: { readonly database: string; readonly figures: ReplicaRoutingFigures }[] = [];
  for (const pool of pools) {
    const figures = pool.figures().replicas;
    if (figures !== undefined) routed.push({ database: pool.name, figures });
  }
  return routed;
}

/**
 * The series of pools with read replicas (none for a pool without): reads per target, consistency waits per
 * outcome, failovers noticed, and each server's lag and rotation. Summed over a cluster's workers, but the lag
 * (the largest) and the rotation (the least: out in one worker's view is out).
 */
function replicaMetrics(pools: readonly HttpPoolFigures[]): CollectedMetric[] {
  return [
    collectedMetric(
      "tenon_db_reads_total",
      "Read statements of sessions, by where they ran (replica, primary), per database.",
      "counter",
      () =>
        routedPools(pools).flatMap(({ database, figures }) => [
          { labels: { database, target: "replica" }, value: figures.reads.replica },
          { labels: { database, target: "primary" }, value: figures.reads.primary },
        ]),
    ),
    collectedMetric(
      "tenon_db_consistency_waits_total",
      "Reads that carried a consistency token, by outcome: a replica at once, a replica after waiting, the primary after the wait.",
      "counter",
      () =>
        routedPools(pools).flatMap(({ database, figures }) => [
          { labels: { database, outcome: "replica" }, value: figures.consistencyWaits.replica },
          { labels: { database, outcome: "waited" }, value: figures.consistencyWaits.waited },
          { labels: { database, outcome: "primary" }, value: figures.consistencyWaits.primary },
        ]),
    ),
    collectedMetric("tenon_db_failovers_total", "Times the primary was found on another server than before, per database.", "counter", () =>
      routedPools(pools).map(({ database, figures }) => ({ labels: { database }, value: figures.failovers })),
    ),
    collectedMetric(
      "tenon_db_replica_lag_seconds",
      "How far behind the primary each replica was at the last check, per database and server.",
      "gauge",
      () =>
        routedPools(pools).flatMap(({ database, figures }) =>
          figures.servers
            .filter((server) => server.role === "replica")
            .map((server) => ({ labels: { database, server: server.address }, value: server.lagSeconds })),
        ),
      "max",
    ),
    collectedMetric(
      "tenon_db_replica_in_rotation",
      "1 when reads go to the server (a reachable replica within the lag bound), else 0, per database and server.",
      "gauge",
      () =>
        routedPools(pools).flatMap(({ database, figures }) =>
          figures.servers.map((server) => ({ labels: { database, server: server.address }, value: server.inRotation ? 1 : 0 })),
        ),
      "min",
    ),
  ];
}
