// Hand-written prepared statements over better-sqlite3: the baseline's data access, shared by the
// raw, Fastify and Express contenders. Every call is synchronous.
import Database from 'better-sqlite3';
import { COLUMNS, HttpError, buildFilter, validateCompany } from './company.mjs';

const LIST = Object.entries(COLUMNS).map(([json, column]) => `${column} AS ${json}`).join(', ');

/** Opens the bench's SQLite file and returns the company store. */
export function openSqliteStore(path) {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const getStmt = db.prepare(`SELECT ${LIST} FROM Companies WHERE ID = ? AND DeletedAt IS NULL`);
  const updateStmt = db.prepare('UPDATE Companies SET Name = ?, Email = ?, VatNumber = ?, CreditLimit = ?, UpdatedAt = ?, UpdatedBy = ?, VersionID = VersionID + 1 WHERE ID = ? AND VersionID = ? AND DeletedAt IS NULL');
  const existsStmt = db.prepare('SELECT 1 FROM Companies WHERE ID = ? AND DeletedAt IS NULL');
  const nextIdStmt = db.prepare('SELECT COALESCE(MAX(ID), 0) + 1 AS id FROM Companies').pluck();
  const insertStmt = db.prepare('INSERT INTO Companies (ID, Name, Email, VatNumber, CreditLimit, CreatedAt, CreatedBy, VersionID) VALUES (?, ?, ?, ?, ?, ?, ?, 1)');
  const selects = new Map(); // SQL text -> [count statement, page statement]

  return {
    get(id) {
      const row = getStmt.get(id);
      if (row === undefined) throw new HttpError(404, `Entity ${id} not found.`);
      return row;
    },
    select(body) {
      const f = buildFilter(body, (c) => c, () => '?');
      const key = f.where + f.orderBy;
      let pair = selects.get(key);
      if (pair === undefined) {
        pair = [
          db.prepare(`SELECT COUNT(*) FROM Companies WHERE ${f.where}`).pluck(),
          db.prepare(`SELECT ${LIST} FROM Companies WHERE ${f.where}${f.orderBy} LIMIT ? OFFSET ?`),
        ];
        selects.set(key, pair);
      }
      const count = pair[0].get(...f.params);
      const data = pair[1].all(...f.params, f.limit, f.start);
      return { count, data };
    },
    update(c) {
      validateCompany(c);
      const now = new Date().toISOString();
      const r = updateStmt.run(c.name, c.email ?? null, c.vatNumber ?? null, c.creditLimit ?? null, now, 'bench', c.id, c.versionId);
      if (r.changes === 0) {
        if (existsStmt.get(c.id) === undefined) throw new HttpError(404, `Entity ${c.id} not found.`);
        throw new HttpError(409, 'The entity was changed by another user.');
      }
      return getStmt.get(c.id);
    },
    insert(c) {
      validateCompany(c);
      const id = c.id ?? nextIdStmt.get();
      const now = new Date().toISOString();
      insertStmt.run(id, c.name, c.email ?? null, c.vatNumber ?? null, c.creditLimit ?? null, now, 'bench');
      return { id, name: c.name, email: c.email ?? null, vatNumber: c.vatNumber ?? null, creditLimit: c.creditLimit ?? null,
        createdAt: now, createdBy: 'bench', updatedAt: null, updatedBy: null, deletedAt: null, deletedBy: null, versionId: 1 };
    },
    close() { db.close(); },
  };
}
