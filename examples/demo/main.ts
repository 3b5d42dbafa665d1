// The demo application that `npm start` serves (README.md). Configuration comes from the environment:
// PORT (8022; 0 for an ephemeral port, printed once listening), DATABASE_URL (postgres://... or
// mariadb://...; default the SQLite file; every node of a PostgreSQL cluster, postgres://user@db1,db2,db3/demo,
// with ?replicaReads=true to read from the replicas, and on Galera ?consistencyTokens=true: writes then answer
// X-Consistency-Token, docs/scaling.md), DEMO_DB_FILE (the SQLite file, data/demo.sqlite),
// SQLITE_DRIVER (better-sqlite3 or node:sqlite; default node:sqlite on Node.js 24+, else better-sqlite3 when installed),
// DEMO_RESET=1 (recreate the data), LOG_FILE (data/http.log), WORKERS (serve from that many processes
// sharing the port; unset: this one process), DRAIN_DELAY_MS (how long a stopping process keeps serving
// after /api/ready turns 503; default 0), TRUSTED_PROXIES (comma-separated addresses or CIDR ranges whose
// X-Forwarded-For is believed; default the loopback peers), METRICS_PORT (Prometheus metrics on this second
// port; default PORT + 1000, ephemeral when PORT is 0; "off": none), METRICS_TOKEN (the bearer token a
// scraper sends; default a random one, printed at start), OTEL=console (print a span per request and per SQL
// statement), RATE_LIMIT (requests per minute per address and per user, logons 10; unset: no limit),
// REDIS_URL (keep the rate-limit counts in Redis, shared by every process), SLOW_REQUEST_MS (the slow
// request log's threshold, default 500; 0: off).
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import type { Database } from "tenon";
import { runWorkers } from "tenon/cluster";
import { type HttpRateLimitStore, type HttpServer, RedisRateLimitStore } from "tenon/http";
import { describeDemoDatabase, openDemoDatabase } from "./database.js";
import { createDemoServer, prepareDemoDatabase } from "./app.js";
import type { DemoContext } from "./demo-context.js";

const root = resolve(new URL("../../..", import.meta.url).pathname);
const databaseUrl = process.env.DATABASE_URL;
const sqliteFile = process.env.DEMO_DB_FILE ?? resolve(root, "data", "demo.sqlite");
const workers = process.env.WORKERS === undefined || process.env.WORKERS === "" ? 0 : Number(process.env.WORKERS);
const reset = process.env.DEMO_RESET === "1";
const port = Number(process.env.PORT ?? 8022);
// Workers inherit the environment: one token for the primary's summed metrics and every worker.
process.env.METRICS_TOKEN ??= randomBytes(18).toString("base64url");
const metrics =
  process.env.METRICS_PORT === "off"
    ? undefined
    : {
        port: process.env.METRICS_PORT === undefined ? (port === 0 ? 0 : port + 1000) : Number(process.env.METRICS_PORT),
        token: process.env.METRICS_TOKEN,
      };

const tracing = process.env.OTEL === "console";
const rateLimit = process.env.RATE_LIMIT === undefined || process.env.RATE_LIMIT === "" ? undefined : Number(process.env.RATE_LIMIT);

/**
 * The rate-limit store: Redis when REDIS_URL is set (the client closes with the process), else none (in-process
 * counts). While Redis is away the client refuses commands at once instead of queueing them until it is back
 * (`disableOfflineQueue`), so a limited request is answered 503 at once, and a request whose client has
 * given up is never counted or run later; the client reconnects by itself (node-redis's default strategy,
 * retrying with a growing delay of at most a few seconds). The outage and the recovery are printed once each.
 */
async function openRateLimitStore(): Promise<HttpRateLimitStore | undefined> {
  const url = process.env.REDIS_URL;
  if (rateLimit === undefined || url === undefined || url === "") return undefined;
  const { createClient } = await import("redis");
  const client = createClient({ url, disableOfflineQueue: true });
  let away = false;
  client.on("error", (error: unknown) => {
    if (away) return;
    away = true;
    console.error(`Redis rate-limit store unreachable (${String(error)}): limited requests answer 503 until it is back.`);
  });
  client.on("ready", () => {
    if (!away) return;
    away = false;
    console.log("Redis rate-limit store reachable again.");
  });
  await client.connect();
  return new RedisRateLimitStore(client, "tenon-demo:ratelimit:");
}

/** Opens the database and starts the server; `prepared` when the schema was made by the primary. */
async function serve(prepared: boolean): Promise<{ server: HttpServer<DemoContext>; database: Database }> {
  if (tracing) (await import("./tracing.js")).traceToConsole();
  const database = await openDemoDatabase(databaseUrl, sqliteFile, process.env.SQLITE_DRIVER);
  const server = await createDemoServer({
    database,
    port,
    reset: reset && !prepared,
    logFile: process.env.LOG_FILE ?? resolve(root, "data", "http.log"),
    drainDelay: Number(process.env.DRAIN_DELAY_MS ?? 0),
    trustedProxies: process.env.TRUSTED_PROXIES?.split(",").map((entry) => entry.trim()),
    metrics,
    tracing,
    rateLimit,
    rateLimitStore: await openRateLimitStore(),
    slowRequestMs: process.env.SLOW_REQUEST_MS === undefined ? undefined : Number(process.env.SLOW_REQUEST_MS),
  });
  return { server, database };
}

function announce(server: HttpServer<DemoContext>, database: Database): void {
  console.log(`Tenon demo listening on http://127.0.0.1:${server.port}/api (${describeDemoDatabase(database)}, process ${process.pid})`);
  if (server.metricsPort !== 0) announceMetrics(server.metricsPort);
}

function announceMetrics(metricsPort: number): void {
  console.log(`Metrics on http://127.0.0.1:${metricsPort}/metrics (Authorization: Bearer ${process.env.METRICS_TOKEN})`);
}

if (workers === 0) {
  let database: Database | undefined;
  let server: HttpServer<DemoContext> | undefined;
  let stopping = false;

  /** Stops the server and closes the database (on every path that ends the process), then exits 0. */
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping`);
    await server?.stop();
    await database?.close();
    process.exit(0);
  };
  // The handlers are in place before anything is announced: a signal that follows the "listening" line at
  // once (a supervisor, a test) must find them.
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  ({ server, database } = await serve(false));
  if (!stopping) {
    await server.start();
    announce(server, database);
  }
} else {
  // WORKERS=N: the primary makes the schema once, then N workers share the port; SIGTERM stops them all,
  // SIGHUP replaces them one at a time, and a worker that dies is replaced.
  const supervisor = await runWorkers(
    {
      workers,
      metrics,
      async prepare() {
        // One signing secret for every worker, and for the workers that replace them: a token issued by one
        // worker must be accepted by the others (each made its own random secret before).
        process.env.JWT_SECRET ??= randomBytes(32).toString("base64url");
        const database = await openDemoDatabase(databaseUrl, sqliteFile, process.env.SQLITE_DRIVER);
        try {
          await prepareDemoDatabase(database, reset);
        } finally {
          await database.close();
        }
      },
    },
    async () => {
      const { server, database } = await serve(true);
      await server.start();
      announce(server, database);
      return {
        async stop() {
          await server.stop();
          await database.close();
        },
      };
    },
  );
  if (supervisor !== undefined && supervisor.metricsPort !== 0) announceMetrics(supervisor.metricsPort);
}
