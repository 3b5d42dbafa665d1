// The Redis rate-limit store killed and restarted under load (faults-restart-redis-suite.ts), against the demo
// on SQLite, PostgreSQL and MariaDB; a throwaway Redis of the test's own, never the shared one. An engine
// server that is not reachable is a loud skip, a failure under CI=true.
import { mariaDbDemoEngine, postgresDemoEngine, sqliteDemoEngine } from "../demo/demo-engines.js";
import { reportUnreachable } from "../orm/engine-availability.js";
import { mariaDbUnreachable } from "../orm/harness-mariadb.js";
import { postgresUnreachable } from "../orm/harness-postgres.js";
import { throwawayRedisUnavailable } from "../support/throwaway-redis.js";
import { defineRedisRestartSuite } from "./faults-restart-redis-suite.js";

const redis = await throwawayRedisUnavailable();
if (redis !== undefined) {
  reportUnreachable("Redis", redis, "rate-limit store fault suite");
} else {
  defineRedisRestartSuite(sqliteDemoEngine);
  const postgres = await postgresUnreachable();
  if (postgres === undefined) defineRedisRestartSuite(postgresDemoEngine);
  else reportUnreachable("PostgreSQL", postgres, "rate-limit store fault suite");
  const mariaDb = await mariaDbUnreachable();
  if (mariaDb === undefined) defineRedisRestartSuite(mariaDbDemoEngine);
  else reportUnreachable("MariaDB", mariaDb, "rate-limit store fault suite");
}
