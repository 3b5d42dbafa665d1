// The Tenon contender of the benchmark: the demo's Company API as a user writes it with `tenon` and
// `tenon/http`. Settings come from the BENCH_* environment that bench/compare-contenders.mjs sets.
import { Schema } from "tenon";
import { HttpServer } from "tenon/http";
import { CompaniesController } from "./companies.js";
import { FeedCompaniesController } from "./feed-companies.js";
import { BenchContext, openDatabase } from "./context.js";
import { registerExtraRoutes } from "./extra-routes.js";
import { HealthController } from "./health.js";
import { registerLogging } from "./logging.js";

const database = await openDatabase();
// BENCH_CHANGE_FEED=1: the routes write FeedCompany, whose writes also write change records (docs/changes.md).
if (process.env.BENCH_CHANGE_FEED === "1") await Schema.apply(database, [], { changeFeed: true });
const server = new HttpServer(BenchContext);
server.baseUri = "/api";
server.port = 0;
server.addBindAddress("127.0.0.1");
server.allowAnonymous = true; // the bench's routes need no authentication
// BENCH_NO_TIMEOUTS=1: no 408 for a request that waited long in a server slowed by valgrind (bench/change-feed-cost.mjs).
if (process.env.BENCH_NO_TIMEOUTS === "1") {
  server.headersTimeout = 0;
  server.bodyTimeout = 0;
  server.keepAliveTimeout = 0;
}
server.registerController(HealthController);
server.registerController(CompaniesController, "/companies");
// BENCH_CHANGE_STREAM=1: the change stream of FeedCompany, for the delay from commit to delivery.
if (process.env.BENCH_CHANGE_STREAM === "1") server.registerController(FeedCompaniesController, "/feed-companies");
registerExtraRoutes(server, Number(process.env.BENCH_ROUTES ?? 0));
registerLogging(server, process.env.BENCH_LOG ?? "", process.env.BENCH_LOG_FILE ?? "http.log");
// The operations features, for their cost (docs/operations.md): BENCH_METRICS=1, BENCH_TRACING=1 (the
// OpenTelemetry API alone: no SDK registered, every span a no-op) or BENCH_TRACING=sdk (the SDK registered).
if (process.env.BENCH_METRICS === "1") server.metrics = { port: 0, token: "bench-metrics-token-0000" };
// The SDK is imported only when asked for: a server without tracing does not load it (nor pay its start-up).
if (process.env.BENCH_TRACING === "sdk") (await import("./tracing-sdk.js")).registerTracingSdk();
if (process.env.BENCH_TRACING === "1" || process.env.BENCH_TRACING === "sdk") server.tracing = true;
await server.start();
process.stdout.write(`LISTENING ${server.port}\n`);

const stop = async (): Promise<void> => {
  await server.stop();
  await database.close();
  process.exit(0);
};
process.once("SIGTERM", () => void stop());
process.once("SIGINT", () => void stop());
