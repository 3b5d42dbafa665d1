import { Context, type Database } from "tenon";
import {
  DatabasePoolFigures,
  DatabaseReadiness,
  type HttpRateLimitStore,
  HttpLogRedactedNames,
  HttpServer,
  JsonLinesLogWriter,
} from "tenon/http";
import { ApiDocsController } from "./api-docs.js";
import { ChangesViewController } from "./changes-view.js";
import { DemoAuthentication } from "./authentication.js";
import {
  AdminController,
  CompanyController,
  EmployeeController,
  ChangesController,
  EmployeeDirectoryController,
  HealthController,
  LogonController,
  OrderController,
} from "./controllers.js";
import { DemoContext } from "./demo-context.js";
import { ensureDemoSchema } from "./schema.js";
import { seedDemo } from "./seed.js";

/** How the demo is configured (from the environment in main.ts). */
export interface DemoOptions {
  /** The opened database. */
  readonly database: Database;
  /** The port (0 for an ephemeral one). */
  readonly port: number;
  /** Recreate the tables and seed rows. */
  readonly reset: boolean;
  /** The JSON-lines log file, or undefined for no request log. */
  readonly logFile: string | undefined;
  /** How long a stop keeps serving after `/ready` turns 503, in ms (DRAIN_DELAY_MS; default 0). */
  readonly drainDelay?: number;
  /** The proxies whose X-Forwarded-For is believed (TRUSTED_PROXIES; default the loopback peers). */
  readonly trustedProxies?: readonly string[];
  /** Prometheus metrics on a second port, for scrapers with the token (METRICS_PORT, METRICS_TOKEN); undefined: none. */
  readonly metrics?: { readonly port: number; readonly token: string };
  /** A server span per request and a client span per statement (OTEL=console). */
  readonly tracing?: boolean;
  /** Requests per minute per address and per user (RATE_LIMIT); undefined: no limit. */
  readonly rateLimit?: number;
  /** Where the rate-limit counts are kept (REDIS_URL: Redis, shared by processes); undefined: this process. */
  readonly rateLimitStore?: HttpRateLimitStore;
  /** The slow request log's threshold in ms (SLOW_REQUEST_MS, default 500; 0: off). */
  readonly slowRequestMs?: number;
}

/** Creates the schema and seed rows when missing (all of it again when `reset`). */
export async function prepareDemoDatabase(database: Database, reset: boolean): Promise<void> {
  await using context = new Context(database);
  // Schema and seed rows are administration: an explicitly unscoped session, of no tenant.
  context.unscoped = true;
  if (await ensureDemoSchema(context, reset)) await seedDemo(context);
}

/** Creates the schema and seed rows when missing, and builds the demo server (not yet started). */
export async function createDemoServer(options: DemoOptions): Promise<HttpServer<DemoContext>> {
  const database = options.database;
  await prepareDemoDatabase(database, options.reset);
  const server = new HttpServer(() => new DemoContext(database));
  server.baseUri = "/api";
  server.port = options.port;
  server.addBindAddress("127.0.0.1");
  // GET /api/live and /api/ready for load balancers; /ready asks the database and turns 503 once a stop begins.
  server.balancerRoutes = true;
  server.readiness = new DatabaseReadiness(options.database);
  server.drainDelay = options.drainDelay ?? 0;
  if (options.trustedProxies !== undefined) server.trustedProxies = options.trustedProxies;
  if (options.metrics !== undefined) {
    // docs/operations.md: requests, statements, the pool and the log queue, on their own port, never anonymous
    server.metrics = { ...options.metrics, pools: [new DatabasePoolFigures("demo", database)] };
  }
  server.tracing = options.tracing === true;
  server.slowRequestThreshold = options.slowRequestMs ?? 500;
  if (options.rateLimit !== undefined) {
    // per address before authentication, per user after it, and logons apart (password guessing)
    server.addRateLimit({ name: "address", limit: options.rateLimit, windowSeconds: 60, by: "ip" });
    server.addRateLimit({ name: "user", limit: options.rateLimit, windowSeconds: 60, by: "user" });
    server.addRateLimit({ name: "logon", limit: 10, windowSeconds: 60, by: "ip", route: "POST /api/logon" });
    server.rateLimitStore = options.rateLimitStore;
  }
  server.registerAuthentication(DemoAuthentication);
  server.registerController(LogonController);
  server.registerController(HealthController);
  server.registerController(AdminController);
  server.registerController(CompanyController, "/companies");
  server.registerController(EmployeeController, "/employees");
  server.registerController(OrderController, "/orders");
  server.registerController(EmployeeDirectoryController, "/employee-directory");
  // GET /api/changes: the changes of companies and orders as Server-Sent Events (each entity has its own too).
  server.registerController(ChangesController, "/changes");
  // GET /api/changes-view: a page that shows them arriving (EventSource), anonymous; it logs on itself.
  server.registerController(ChangesViewController);
  // GET /api/openapi.json: the OpenAPI 3.1 document, anonymous, built on the first request (docs/openapi.md).
  server.serveOpenApi("/openapi.json", { title: "Tenon demo", version: "1.0.0" });
  // GET /api/openapi/mine: the document as the caller sees it (its areas, and what the policies let it read and write).
  server.serveCallerOpenApi("/openapi/mine");
  // GET /api/docs: the API reference page (Swagger UI), anonymous, served offline.
  server.registerController(ApiDocsController);
  if (options.logFile !== undefined) {
    JsonLinesLogWriter.path = options.logFile;
    server.registerLogWriter(JsonLinesLogWriter);
    HttpLogRedactedNames.add("vatNumber");
  }
  return server;
}
