// The shared data set: the Companies table of the demo, N deterministic rows, in a SQLite file
// (WAL mode) and in the PostgreSQL schema tenon_bench. Every contender serves these same rows.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";

const WORDS = ["Company", "Compass", "Acme", "Globex", "Initech", "Umbrella", "Northwind", "Contoso"];
const TAILS = ["Holdings", "Trading", "Systems", "Logistics", "Foods", "Labs", "Partners", "Works"];
const COUNTRIES = ["DE", "FR", "NL", "IT", "ES", "BE", "AT", "PL"];

/** The row with primary key `id` (1-based); the load scripts rebuild email, VAT and limit the same way. */
export function companyRow(id) {
  // A small integer hash keeps the data deterministic without a stored seed.
  let h = Math.imul(id ^ 0x9e3779b9, 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  h = (h ^ (h >>> 16)) >>> 0;
  return {
    id,
    name: `${WORDS[h % 8]} ${TAILS[(h >>> 3) % 8]} ${id}`,
    email: `contact${id}@example.com`,
    vatNumber: `${COUNTRIES[id % 8]}${String(id).padStart(9, "0")}`,
    creditLimit: (id % 1000) * 100,
    createdAt: new Date(Date.UTC(2024, 0, 1) + (id % 86400) * 1000).toISOString(),
    createdBy: "seed",
  };
}

/** The DDL of the SQLite table (the names the demo uses). */
export const SQLITE_DDL = `CREATE TABLE Companies (
  ID INTEGER PRIMARY KEY NOT NULL,
  Name VARCHAR(100) NOT NULL,
  Email VARCHAR(200),
  VatNumber VARCHAR(20),
  CreditLimit DOUBLE PRECISION,
  CreatedAt TIMESTAMP, CreatedBy VARCHAR(100),
  UpdatedAt TIMESTAMP, UpdatedBy VARCHAR(100),
  DeletedAt TIMESTAMP, DeletedBy VARCHAR(100),
  VersionID INTEGER NOT NULL DEFAULT 1);
CREATE INDEX IX_Companies_Name ON Companies (Name);`;

/**
 * Creates (once per run directory and row count) the pristine SQLite file and returns its path.
 * Scenarios that write get a fresh copy of it through `copySqlite`.
 */
export function sqliteDataset(dir, rows) {
  const file = path.join(dir, `companies-${rows}.sqlite`);
  if (fs.existsSync(file)) return file;
  // Built under a name of this process's own, then renamed into place: two runs started together (one per Node.js
  // line, say) each build a copy instead of both writing one file.
  const tmp = `${file}.${process.pid}.building`;
  for (const f of [tmp, `${tmp}-wal`, `${tmp}-shm`]) fs.rmSync(f, { force: true });
  const db = new Database(tmp);
  db.pragma("journal_mode = WAL");
  db.exec(SQLITE_DDL);
  const ins = db.prepare(
    "INSERT INTO Companies (ID, Name, Email, VatNumber, CreditLimit, CreatedAt, CreatedBy, VersionID) VALUES (?, ?, ?, ?, ?, ?, ?, 1)",
  );
  const batch = db.transaction((from, to) => {
    for (let id = from; id <= to; id++) {
      const r = companyRow(id);
      ins.run(id, r.name, r.email, r.vatNumber, r.creditLimit, r.createdAt, r.createdBy);
    }
  });
  for (let from = 1; from <= rows; from += 50000) batch(from, Math.min(rows, from + 49999));
  db.exec("ANALYZE");
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  fs.renameSync(tmp, file);
  for (const f of [`${tmp}-wal`, `${tmp}-shm`]) fs.rmSync(f, { force: true });
  return file;
}

/** A private copy of the pristine file, for one server start of a writing scenario. */
export function copySqlite(pristine, target) {
  for (const f of [target, `${target}-wal`, `${target}-shm`]) fs.rmSync(f, { force: true });
  fs.copyFileSync(pristine, target);
  return target;
}

/** Removes a SQLite file and its WAL companions. */
export function removeSqlite(file) {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
}

export const PG_URL = "postgres://postgres@127.0.0.1:5432/test";
export const PG_SCHEMA = "tenon_bench";

/**
 * Creates the schema tenon_bench (only that schema is ever touched) with `companies`, its seed copy
 * `companies_seed` and the sequence `companies_seq`. Returns a `reset()` that restores the rows.
 */
export async function pgDataset(rows) {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${PG_SCHEMA}`);
    await client.query(`SET search_path = ${PG_SCHEMA}`);
    await client.query("DROP TABLE IF EXISTS companies_seed");
    await client.query(`CREATE TABLE companies_seed (
      id integer PRIMARY KEY, name varchar(100) NOT NULL, email varchar(200), vatnumber varchar(20),
      creditlimit double precision, createdat timestamptz, createdby varchar(100), updatedat timestamptz,
      updatedby varchar(100), deletedat timestamptz, deletedby varchar(100), versionid integer NOT NULL DEFAULT 1)`);
    for (let from = 1; from <= rows; from += 10000) {
      const cols = [[], [], [], [], [], [], []];
      for (let id = from; id <= Math.min(rows, from + 9999); id++) {
        const r = companyRow(id);
        for (const [i, v] of [r.id, r.name, r.email, r.vatNumber, r.creditLimit, r.createdAt, r.createdBy].entries()) cols[i].push(v);
      }
      await client.query(
        `INSERT INTO companies_seed (id, name, email, vatnumber, creditlimit, createdat, createdby)
        SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::float8[], $6::timestamptz[], $7::text[])`,
        cols,
      );
    }
  } finally {
    await client.end();
  }
  const reset = async () => {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    try {
      await c.query(`SET search_path = ${PG_SCHEMA}`);
      await c.query("DROP TABLE IF EXISTS companies");
      await c.query("CREATE TABLE companies (LIKE companies_seed INCLUDING ALL)");
      await c.query("INSERT INTO companies SELECT * FROM companies_seed");
      await c.query("CREATE INDEX ix_companies_name ON companies (name)");
      await c.query("DROP SEQUENCE IF EXISTS companies_seq");
      await c.query(`CREATE SEQUENCE companies_seq START ${rows + 1}`);
      await c.query("ANALYZE companies");
    } finally {
      await c.end();
    }
  };
  await reset();
  return { url: PG_URL, schema: PG_SCHEMA, reset };
}

/** Drops the bench's own schema (and nothing else). */
export async function dropPgDataset() {
  const { default: pg } = await import("pg");
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    await c.query(`DROP SCHEMA IF EXISTS ${PG_SCHEMA} CASCADE`);
  } finally {
    await c.end();
  }
}
