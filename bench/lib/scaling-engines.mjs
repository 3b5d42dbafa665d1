// The databases bench/scaling.mjs runs the demo on, each a throwaway database: `DATABASE_URL` for the demo,
// the sessions the database sees (and how many are busy), the processes whose CPU is the database's, and
// the clean-up.
import fs from "node:fs";
import mariadb from "mariadb";
import pg from "pg";

/** PostgreSQL at `baseUrl`: a database `tenon_scaling_<pid>`, its backends' sessions and processes. */
export async function postgresEngine(baseUrl) {
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  const name = `tenon_scaling_${process.pid}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    id: "pg",
    name: "PostgreSQL",
    url: url.href,
    async sessions() {
      const r = await admin.query(
        "SELECT count(*)::int AS n, count(*) FILTER (WHERE state <> 'idle')::int AS busy FROM pg_stat_activity WHERE datname = $1",
        [name],
      );
      return { total: r.rows[0].n, busy: r.rows[0].busy };
    },
    async processes() {
      return (await admin.query("SELECT pid FROM pg_stat_activity WHERE datname = $1", [name])).rows.map((row) => row.pid);
    },
    async close() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await admin.end().catch(() => {});
    },
  };
}

/**
 * The Galera cluster that `scripts/galera.sh up` started (its state file): the demo connects through the
 * cluster's HAProxy; sessions are counted on every node (not Galera's own applier threads, which show the
 * database they last wrote to), and the database's CPU is the three servers'.
 */
export async function galeraEngine(stateFile) {
  if (!fs.existsSync(stateFile))
    throw new Error(`No Galera cluster recorded in ${stateFile}: run GALERA_STATE=${stateFile} scripts/galera.sh up first.`);
  const state = JSON.parse(fs.readFileSync(stateFile, "utf8"));
  const nodes = await Promise.all(
    state.nodes.map((node) => mariadb.createConnection({ host: "127.0.0.1", port: node.port, user: "root" })),
  );
  const name = `tenon_scaling_${process.pid}`;
  await nodes[0].query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
  return {
    id: "galera",
    name: "Galera (3 nodes behind HAProxy)",
    url: `${state.url.replace(/\/$/, "")}/${name}`,
    async sessions() {
      let total = 0;
      let busy = 0;
      for (const node of nodes) {
        const [row] = await node.query(
          "SELECT COUNT(*) AS n, COALESCE(SUM(COMMAND <> 'Sleep'), 0) AS busy FROM information_schema.PROCESSLIST WHERE DB = ? AND USER <> 'system user'",
          [name],
        );
        total += Number(row.n);
        busy += Number(row.busy);
      }
      return { total, busy };
    },
    async processes() {
      return state.nodes.map((node) => node.pid);
    },
    async close() {
      await nodes[0].query(`DROP DATABASE IF EXISTS ${name}`).catch(() => {});
      for (const node of nodes) await node.end().catch(() => {});
    },
  };
}
