// Hand-written prepared (named) statements over node-postgres: the PostgreSQL variant of the
// baseline's data access, shared by raw, Fastify and Express. Every call returns a Promise.
import pg from 'pg';
import { COLUMNS, HttpError, buildFilter, validateCompany } from './company.mjs';

const LIST = Object.entries(COLUMNS).map(([json, column]) => `${column.toLowerCase()} AS "${json}"`).join(', ');
const GET = `SELECT ${LIST} FROM companies WHERE id = $1 AND deletedat IS NULL`;
const UPDATE = 'UPDATE companies SET name = $1, email = $2, vatnumber = $3, creditlimit = $4, updatedat = $5, updatedby = $6, versionid = versionid + 1 WHERE id = $7 AND versionid = $8 AND deletedat IS NULL';

/** Opens a pool on the bench schema and returns the company store. */
export function openPgStore(url, schema, poolSize = 10) {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, options: `-c search_path=${schema}` });
  let selectNo = 0;
  const selects = new Map();
  return {
    async get(id) {
      const r = await pool.query({ name: 'get', text: GET, values: [id] });
      if (r.rows.length === 0) throw new HttpError(404, `Entity ${id} not found.`);
      return r.rows[0];
    },
    async select(body) {
      const f = buildFilter(body, (c) => c.toLowerCase(), (i) => `$${i + 1}`);
      const key = f.where + f.orderBy;
      let names = selects.get(key);
      if (names === undefined) { selectNo += 1; names = [`count${selectNo}`, `page${selectNo}`]; selects.set(key, names); }
      const n = f.params.length;
      const [count, page] = await Promise.all([
        pool.query({ name: names[0], text: `SELECT COUNT(*)::int AS n FROM companies WHERE ${f.where}`, values: f.params }),
        pool.query({ name: names[1], text: `SELECT ${LIST} FROM companies WHERE ${f.where}${f.orderBy} LIMIT $${n + 1} OFFSET $${n + 2}`, values: [...f.params, f.limit, f.start] }),
      ]);
      return { count: count.rows[0].n, data: page.rows };
    },
    async update(c) {
      validateCompany(c);
      const r = await pool.query({ name: 'update', text: UPDATE, values: [c.name, c.email ?? null, c.vatNumber ?? null, c.creditLimit ?? null, new Date(), 'bench', c.id, c.versionId] });
      if (r.rowCount === 0) {
        const e = await pool.query({ name: 'exists', text: 'SELECT 1 FROM companies WHERE id = $1 AND deletedat IS NULL', values: [c.id] });
        if (e.rows.length === 0) throw new HttpError(404, `Entity ${c.id} not found.`);
        throw new HttpError(409, 'The entity was changed by another user.');
      }
      return (await pool.query({ name: 'get', text: GET, values: [c.id] })).rows[0];
    },
    async insert(c) {
      validateCompany(c);
      const id = c.id ?? (await pool.query({ name: 'nextval', text: "SELECT nextval('companies_seq')::int AS id" })).rows[0].id;
      const now = new Date();
      await pool.query({ name: 'insert', text: 'INSERT INTO companies (id, name, email, vatnumber, creditlimit, createdat, createdby, versionid) VALUES ($1, $2, $3, $4, $5, $6, $7, 1)', values: [id, c.name, c.email ?? null, c.vatNumber ?? null, c.creditLimit ?? null, now, 'bench'] });
      return { id, name: c.name, email: c.email ?? null, vatNumber: c.vatNumber ?? null, creditLimit: c.creditLimit ?? null,
        createdAt: now, createdBy: 'bench', updatedAt: null, updatedBy: null, deletedAt: null, deletedBy: null, versionId: 1 };
    },
    close() { return pool.end(); },
  };
}
