// The demo application that `npm start` serves (DEMO.md). Configuration comes from the environment:
// PORT (8022; 0 for an ephemeral port, printed once listening), DATABASE_URL (postgres://... or
// mariadb://...; default the SQLite file), DEMO_DB_FILE (the SQLite file, data/demo.sqlite),
// DEMO_RESET=1 (recreate the data), LOG_FILE (data/http.log).
import { resolve } from "node:path";
import type { Database } from "tenon";
import type { HttpServer } from "tenon/http";
import { openDemoDatabase } from "./database.js";
import { createDemoServer } from "./app.js";
import type { DemoContext } from "./demo-context.js";

let database: Database | undefined;
let server: HttpServer<DemoContext> | undefined;
let stopping = false;

/** Stops the server and closes the database (SPEC.md 3: on every path that ends the process), then exits 0. */
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: stopping`);
  await server?.stop();
  await database?.close();
  process.exit(0);
}

// The handlers are in place before anything is announced: a signal that follows the "listening" line at
// once (a supervisor, a test) must find them.
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));

const root = resolve(new URL("../../..", import.meta.url).pathname);
database = await openDemoDatabase(process.env.DATABASE_URL, process.env.DEMO_DB_FILE ?? resolve(root, "data", "demo.sqlite"));
server = await createDemoServer({
  database,
  port: Number(process.env.PORT ?? 8022),
  reset: process.env.DEMO_RESET === "1",
  logFile: process.env.LOG_FILE ?? resolve(root, "data", "http.log"),
});
if (!stopping) {
  await server.start();
  console.log(`Tenon demo listening on http://127.0.0.1:${server.port}/api (${database.dialect.name})`);
}
