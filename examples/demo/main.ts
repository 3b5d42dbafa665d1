// The demo application that `npm start` serves (DEMO.md). Configuration comes from the environment:
// PORT (8022), DATABASE_URL (postgres://... or mariadb://...; default the SQLite file data/demo.sqlite),
// DEMO_DB_FILE (the SQLite file, data/demo.sqlite), DEMO_RESET=1 (recreate the data), LOG_FILE (data/http.log).
import { resolve } from "node:path";
import { openDemoDatabase } from "./database.js";
import { createDemoServer } from "./app.js";

const root = resolve(new URL("../../..", import.meta.url).pathname);
const port = Number(process.env.PORT ?? 8022);
const database = await openDemoDatabase(process.env.DATABASE_URL, process.env.DEMO_DB_FILE ?? resolve(root, "data", "demo.sqlite"));
const server = await createDemoServer({
  database,
  port,
  reset: process.env.DEMO_RESET === "1",
  logFile: process.env.LOG_FILE ?? resolve(root, "data", "http.log"),
});
await server.start();
console.log(`Tenon demo listening on http://127.0.0.1:${server.port}/api (${database.dialect.name})`);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: stopping`);
  await server.stop();
  await database.close();
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
