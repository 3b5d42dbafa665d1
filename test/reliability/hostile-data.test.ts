// Hostile data (docs/reliability.md): generated filter and entity bodies against the demo over HTTP, on
// SQLite and, with fewer cases, on PostgreSQL and MariaDB. The seed is printed; TENON_SEED replays it, and
// TENON_LONG=1 (`npm run test:reliability`) runs many more cases.
import { mariaDbDemoEngine, postgresDemoEngine, sqliteDemoEngine } from "../demo/demo-engines.js";
import { reportUnreachable } from "../orm/engine-availability.js";
import { mariaDbUnreachable } from "../orm/harness-mariadb.js";
import { postgresUnreachable } from "../orm/harness-postgres.js";
import { defineHostileDataSuite, long, seed } from "./hostile-data-suite.js";

console.log(`hostile data: seed ${seed} (TENON_SEED=${seed} replays this run)${long ? ", long variant" : ""}`);

defineHostileDataSuite(sqliteDemoEngine, long ? 3000 : 100);
const postgres = await postgresUnreachable();
if (postgres === undefined) defineHostileDataSuite(postgresDemoEngine, long ? 600 : 30);
else reportUnreachable("PostgreSQL", postgres, "hostile-data suite");
const mariadb = await mariaDbUnreachable();
if (mariadb === undefined) defineHostileDataSuite(mariaDbDemoEngine, long ? 600 : 30);
else reportUnreachable("MariaDB", mariadb, "hostile-data suite");
