// Aggregates and count modes on 10^6 rows (issue 32), on SQLite, PostgreSQL and MariaDB: each question asked
// through Tenon's aggregate route (POST /sales/aggregate, a real socket, the server in this process), the
// statement Tenon builds for it run directly through the driver, and the same question written by hand in the
// engine's SQL run directly; the ratios say what the route adds (HTTP, the body, the JSON) and what its
// statement's form adds (the derived table, the group count, NULL-lowest ordering). Then `count: "estimated"`
// (the planner's figure) against the exact count of the same rows.
//   npm run build && node bench/aggregates.mjs [--rows 1000000] [--repeat 7] [--engines sqlite,postgres,mariadb]
// The table is the aggregate suite's AggSales (test/orm/aggregate-suite.ts), with indexes on (TenantID, StoreID)
// and (TenantID, SoldAt); rows are made by the engine itself (generate_series, the SEQUENCE engine, a recursive
// CTE), so loading 10^6 rows takes seconds. Every database, schema and file is this run's own and is dropped.
import { spawnSync } from "node:child_process";
import http from "node:http";
import { parseArgs } from "node:util";
import BetterSqlite3 from "better-sqlite3";
import { Context, FilterBuilder } from "../dist/src/index.js";
import { HttpContext, HttpEntityController, HttpServer } from "../dist/src/http/index.js";
import { prepareAggregate } from "../dist/src/session/session-aggregates.js";
import { parseAggregateBody } from "../dist/src/http/crud/aggregate-body.js";
import { HttpFilterParameters } from "../dist/src/http/crud/http-filter-parameters.js";
import { decodeColumnJson } from "../dist/src/json/column-json.js";
import { EntityMapping } from "../dist/src/mapping/entity-mapping.js";
import { AggSale } from "../dist/test/orm/aggregate-suite.js";
import { sqliteHarness } from "../dist/test/orm/harness.js";
import { openPostgres } from "../dist/test/orm/harness-postgres.js";
import { openMariaDb } from "../dist/test/orm/harness-mariadb.js";

// The suite's entity classes import "tenon", and this script the compiled files beside it: the repository's
// `tenon-source` condition makes both one copy (scripts/run-tests.mjs runs the tests so). Without it, run again with it.
if (!process.execArgv.includes("--conditions=tenon-source")) {
  const { status } = spawnSync(process.execPath, ["--conditions=tenon-source", ...process.execArgv, ...process.argv.slice(1)], {
    stdio: "inherit",
  });
  process.exit(status ?? 1);
}

const { values: o } = parseArgs({
  options: {
    rows: { type: "string", default: "1000000" },
    repeat: { type: "string", default: "7" },
    engines: { type: "string", default: "sqlite,postgres,mariadb" },
  },
});
const rows = Number(o.rows);
const repeat = Number(o.repeat);

/** The generated columns of row `g`, per engine: the same integer arithmetic everywhere. */
function rowsSql(engine, source, g) {
  const text = (expression, values) => `CASE ${expression} ${values.map((v, i) => `WHEN ${i} THEN '${v}'`).join(" ")} END`;
  const mod = (a, b) => (engine === "postgres" || engine === "sqlite" ? `(${a}) % ${b}` : `MOD(${a}, ${b})`);
  const date =
    engine === "postgres"
      ? `TIMESTAMPTZ '2023-01-01T00:00:00Z' + ${mod(`${g} * 7919`, 63072000)} * INTERVAL '1 second'`
      : engine === "mariadb"
        ? `TIMESTAMPADD(SECOND, ${mod(`${g} * 7919`, 63072000)}, '2023-01-01 00:00:00')`
        : `strftime('%Y-%m-%dT%H:%M:%S.000Z', 1672531200 + ${mod(`${g} * 7919`, 63072000)}, 'unixepoch')`;
  const decimal = engine === "sqlite" ? `${mod(`${g} * 104729`, 1000000)}` : `${mod(`${g} * 104729`, 1000000)} / 100.0`;
  const bool = engine === "postgres" ? `${mod(g, 2)} = 0` : `${mod(g, 2)}`;
  return `SELECT ${g}, CASE WHEN ${mod(g, 10)} < 6 THEN 'north' ELSE 'south' END, ${text(mod(g, 4), ["east", "north", "south", "west"])},
    ${text(mod(`${g} * 31`, 5), ["app", "mail", "phone", "shop", "web"])}, ${mod(`${g} * 17`, 21)}, ${g} * 1000003, ${decimal},
    ${mod(g, 401)} / 4.0, ${bool}, ${date}, CASE WHEN ${mod(g, 10)} < 6 THEN 1 + ${mod(`${g} * 13`, 12)} ELSE 13 + ${mod(`${g} * 13`, 8)} END,
    CASE WHEN ${mod(g, 20)} = 0 THEN ${engine === "sqlite" ? "'2025-01-01T00:00:00.000Z'" : engine === "postgres" ? "TIMESTAMPTZ '2025-01-01T00:00:00Z'" : "'2025-01-01 00:00:00'"} ELSE NULL END
    FROM ${source}`;
}

const sources = {
  postgres: ["generate_series(CAST(1 AS BIGINT), %n) g", "g"],
  mariadb: ["seq_1_to_%n s", "s.seq"],
  sqlite: ["s", "g"],
};

/** The questions: an aggregate body, and the same question in the engine's SQL by hand. */
function questions(engine) {
  const month =
    engine === "postgres"
      ? "date_trunc('month', SoldAt, 'UTC')"
      : engine === "mariadb"
        ? "DATE_FORMAT(SoldAt, '%Y-%m-01')"
        : "substr(SoldAt, 1, 7)";
  const since =
    engine === "postgres"
      ? "TIMESTAMPTZ '2024-01-01T00:00:00Z'"
      : engine === "mariadb"
        ? "'2024-01-01 00:00:00'"
        : "'2024-01-01T00:00:00.000Z'";
  const live = "TenantID = 'north' AND DeletedAt IS NULL";
  return [
    {
      label: "count and sum of a decimal by store (index on TenantID, StoreID)",
      body: {
        groupBy: ["storeId"],
        metrics: [
          { fn: "count", as: "n" },
          { fn: "sum", column: "amount", as: "total" },
        ],
      },
      sql: `SELECT StoreID, COUNT(*), SUM(Amount) FROM AggSales WHERE ${live} GROUP BY StoreID ORDER BY StoreID`,
    },
    {
      label: "count and average by month since 2024 (index on TenantID, SoldAt)",
      body: {
        where: [{ columnName: "soldAt", condition: ">=", value: "2024-01-01T00:00:00.000Z" }],
        groupBy: [{ column: "soldAt", truncate: "month" }],
        metrics: [
          { fn: "count", as: "n" },
          { fn: "avg", column: "units", as: "mean" },
        ],
      },
      sql: `SELECT ${month}, COUNT(*), SUM(Units), COUNT(Units) FROM AggSales WHERE ${live} AND SoldAt >= ${since} GROUP BY ${month} ORDER BY 1`,
    },
    {
      label: "top 5 channels by total, having more than 1000 rows",
      body: {
        groupBy: ["channel"],
        metrics: [
          { fn: "count", as: "n" },
          { fn: "sum", column: "amount", as: "total" },
        ],
        having: [{ columnName: "n", condition: ">", value: 1000 }],
        orderBy: [{ columnName: "total", direction: "DESC" }],
        limit: 5,
      },
      sql: `SELECT Channel, COUNT(*), SUM(Amount) FROM AggSales WHERE ${live} GROUP BY Channel HAVING COUNT(*) > 1000 ORDER BY 3 DESC, 1 LIMIT 5`,
    },
  ];
}

let database;
class BenchContext {
  #orm;
  get orm() {
    this.#orm ??= new HttpContext(database);
    this.#orm.onGetCurrentTenant = () => "north";
    return this.#orm;
  }
  async [Symbol.asyncDispose]() {
    await this.#orm?.dispose();
  }
}
class Sales extends HttpEntityController {
  entityClass = AggSale;
  get httpContext() {
    return this.context.orm;
  }
  get filterParameters() {
    return new HttpFilterParameters({ maxGroups: -1 });
  }
}

async function median(work) {
  for (let i = 0; i < 2; i++) await work();
  const ms = [];
  for (let i = 0; i < repeat; i++) {
    const t0 = performance.now();
    await work();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return ms[Math.floor(ms.length / 2)];
}

/** POST of an aggregate body on a fresh connection (no idle keep-alive socket the server may have closed). */
function post(port, body) {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: "127.0.0.1",
        port,
        path: "/sales/aggregate",
        method: "POST",
        agent: false,
        headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) },
      },
      (response) => {
        const chunks = [];
        response.on("data", (chunk) => chunks.push(chunk));
        response.on("end", () => {
          const answer = Buffer.concat(chunks).toString("utf8");
          if (response.statusCode !== 200) reject(new Error(`${response.statusCode}: ${answer}`));
          else resolve(JSON.parse(answer));
        });
      },
    );
    request.on("error", reject);
    request.end(text);
  });
}

/** Opens a scratch database of the engine with the table, its rows and indexes; `direct(sql, parameters)` runs SQL without Tenon. */
async function open(engine) {
  const t0 = performance.now();
  let db;
  let direct;
  let closeDirect = async () => {};
  if (engine === "sqlite") {
    db = await sqliteHarness.open();
    const file = db.database.filename ?? db.database.name;
    const raw = new BetterSqlite3(file, { readonly: true });
    raw.defaultSafeIntegers(true);
    direct = async (sql, parameters = []) =>
      raw
        .prepare(sql)
        .raw(true)
        .all(...parameters);
    closeDirect = async () => raw.close();
  } else if (engine === "postgres") {
    db = await openPostgres();
    direct = async (sql, parameters = []) => (await db.rows(sql, parameters)).map((row) => Object.values(row));
  } else {
    db = await openMariaDb();
    direct = async (sql, parameters = []) => (await db.rows(sql, parameters)).map((row) => Object.values(row));
  }
  const types =
    engine === "sqlite"
      ? sqliteHarness.types
      : engine === "postgres"
        ? { decimal: (p, s) => `NUMERIC(${p}, ${s})`, timestamp: "TIMESTAMPTZ", boolean: "BOOLEAN", float: "DOUBLE PRECISION" }
        : { decimal: (p, s) => `DECIMAL(${p}, ${s})`, timestamp: "DATETIME(3)", boolean: "BOOLEAN", float: "DOUBLE" };
  await db.exec(
    `CREATE TABLE AggStores (ID INTEGER NOT NULL PRIMARY KEY, TenantID VARCHAR(20) NOT NULL, Name VARCHAR(40) NOT NULL, City VARCHAR(40), DeletedAt ${types.timestamp})`,
  );
  await db.exec(`CREATE TABLE AggSales (ID INTEGER NOT NULL PRIMARY KEY, TenantID VARCHAR(20) NOT NULL, Region VARCHAR(20), Channel VARCHAR(20) NOT NULL,
    Units INTEGER, Big BIGINT, Amount ${engine === "sqlite" ? "INTEGER" : types.decimal(18, 2)}, Ratio ${types.float}, Active ${types.boolean} NOT NULL,
    SoldAt ${types.timestamp}, StoreID INTEGER, DeletedAt ${types.timestamp})`);
  const [source, g] = sources[engine];
  const from = source.replace("%n", String(rows));
  const insert = `INSERT INTO AggSales (ID, TenantID, Region, Channel, Units, Big, Amount, Ratio, Active, SoldAt, StoreID, DeletedAt) `;
  if (engine === "sqlite")
    await db.exec(
      `${insert}WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < ${rows}) ${rowsSql(engine, "s", "g")}`,
    );
  else await db.exec(insert + rowsSql(engine, from, g));
  await db.exec("CREATE INDEX IX_AggSales_Store ON AggSales (TenantID, StoreID)");
  await db.exec("CREATE INDEX IX_AggSales_SoldAt ON AggSales (TenantID, SoldAt)");
  await db.exec(engine === "postgres" ? "ANALYZE AggSales" : engine === "mariadb" ? "ANALYZE TABLE AggSales" : "ANALYZE");
  process.stderr.write(`${engine}: ${rows.toLocaleString("en")} rows loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  return {
    db,
    direct,
    close: async () => {
      await closeDirect();
      await db.close();
    },
  };
}

const results = [];
const counts = [];
for (const engine of o.engines.split(",")) {
  const { db, direct, close } = await open(engine);
  database = db.database;
  const server = new HttpServer(BenchContext);
  server.port = 0;
  server.addBindAddress("127.0.0.1");
  server.allowAnonymous = true;
  server.registerController(Sales, "/sales");
  await server.start();
  try {
    for (const question of questions(engine)) {
      const mapping = EntityMapping.of(AggSale);
      const query = parseAggregateBody(question.body, mapping, decodeColumnJson, HttpFilterParameters.defaults, {
        sumsExactly: () => true,
      });
      const statement = prepareAggregate(
        database.dialect,
        { unscoped: false, onGetCurrentTenant: () => "north" },
        AggSale,
        query,
      ).statement;
      const answer = await post(server.port, question.body);
      const hand = await direct(question.sql);
      if (answer.data.length !== hand.length)
        throw new Error(`${engine}, ${question.label}: ${answer.data.length} groups by Tenon, ${hand.length} by hand`);
      const route = await median(() => post(server.port, question.body));
      const statementMs = await median(() => direct(statement.sql, statement.parameters));
      const handMs = await median(() => direct(question.sql));
      results.push({ engine, label: question.label, route, statement: statementMs, hand: handMs });
    }
    const all = new FilterBuilder(AggSale).build();
    for (const mode of ["exact", "estimated", { atMost: 10000 }]) {
      const count = async () => {
        const context = new Context(database);
        context.onGetCurrentTenant = () => "north";
        try {
          return await context.countRows(AggSale, all, mode);
        } finally {
          await context.dispose();
        }
      };
      const ms = await median(count);
      const answer = await count();
      counts.push({ engine, mode: typeof mode === "string" ? mode : `atMost ${mode.atMost}`, ms, answer });
    }
  } finally {
    await server.stop();
    database = undefined;
    await close();
  }
}

console.log(`\nAggregates on ${rows.toLocaleString("en")} rows (60% of one tenant's, 5% soft-deleted), median of ${repeat}, ms`);
console.log("| engine | question | Tenon route | Tenon's statement, direct | hand-written SQL, direct | route / hand | statement / hand |");
console.log("|---|---|---|---|---|---|---|");
for (const r of results) {
  console.log(
    `| ${r.engine} | ${r.label} | ${r.route.toFixed(1)} | ${r.statement.toFixed(1)} | ${r.hand.toFixed(1)} | ${(r.route / r.hand).toFixed(2)} | ${(r.statement / r.hand).toFixed(2)} |`,
  );
}
console.log(`\nCounts of one tenant's live rows (Context.countRows), median of ${repeat}, ms`);
console.log("| engine | mode | ms | answer |");
console.log("|---|---|---|---|");
for (const c of counts)
  console.log(`| ${c.engine} | ${c.mode} | ${c.ms.toFixed(2)} | ${c.answer.count.toLocaleString("en")} (${c.answer.kind}) |`);
