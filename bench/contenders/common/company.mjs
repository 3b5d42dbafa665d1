// The Company entity as every hand-written contender serves it: the column list, the JSON names,
// the demo's validation rules and the filter body (docs/crud.md) turned into SQL. Raw node:http,
// Fastify and Express share this file, so they run the very same SQL.

/** JSON property name -> database column (SQLite spelling; PostgreSQL folds these to lower case). */
export const COLUMNS = {
  id: 'ID', name: 'Name', email: 'Email', vatNumber: 'VatNumber', creditLimit: 'CreditLimit',
  createdAt: 'CreatedAt', createdBy: 'CreatedBy', updatedAt: 'UpdatedAt', updatedBy: 'UpdatedBy',
  deletedAt: 'DeletedAt', deletedBy: 'DeletedBy', versionId: 'VersionID',
};

/** Text columns, the only ones LIKE may be used on. */
const TEXT = new Set(['name', 'email', 'vatNumber', 'createdBy', 'updatedBy', 'deletedBy']);

/** Lookup of a filter's columnName: JSON name or column name, case-insensitive. */
const BY_NAME = new Map();
for (const [json, column] of Object.entries(COLUMNS)) {
  BY_NAME.set(json.toLowerCase(), json);
  BY_NAME.set(column.toLowerCase(), json);
}

const CONDITIONS = new Set(['=', '<>', '<', '<=', '>', '>=', 'LIKE', 'NOT LIKE', 'IN', 'IS NULL', 'IS NOT NULL']);

/** An error with an HTTP status, answered as `{status, message}`. */
export class HttpError extends Error {
  constructor(status, message, errors) {
    super(message);
    this.status = status;
    this.errors = errors;
  }
  toJSON() {
    return this.errors ? { status: this.status, message: this.message, errors: this.errors }
      : { status: this.status, message: this.message };
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const VAT = /^[A-Z]{2}[0-9A-Z]{2,12}$/;

/** Validates a company body as the demo states it; throws a 422 HttpError listing every failure. */
export function validateCompany(c) {
  if (c === null || typeof c !== 'object' || Array.isArray(c)) throw new HttpError(400, 'The body must be a JSON object.');
  const errors = [];
  const add = (property, message) => errors.push({ property, column: COLUMNS[property], message });
  if (typeof c.name !== 'string' || c.name.length === 0) add('name', 'name is required.');
  else if (c.name.length > 100) add('name', 'name must be at most 100 characters long.');
  if (c.email != null && (typeof c.email !== 'string' || !EMAIL.test(c.email))) add('email', 'email is not a valid e-mail address.');
  if (c.vatNumber != null && (typeof c.vatNumber !== 'string' || !VAT.test(c.vatNumber))) add('vatNumber', 'vatNumber does not match the required pattern.');
  if (c.creditLimit != null && (typeof c.creditLimit !== 'number' || c.creditLimit < 0 || c.creditLimit > 1000000)) add('creditLimit', 'creditLimit must be between 0 and 1000000.');
  if (errors.length > 0) throw new HttpError(422, 'Validation failed.', errors);
}

/**
 * Turns the filter body (docs/crud.md) into the WHERE, ORDER BY and paging of a select.
 * `quote(column)` spells a column for the engine; `param(i)` spells the i-th placeholder.
 * Returns `{where, orderBy, params, start, limit}`; no text of the body reaches the SQL.
 */
export function buildFilter(body, quote, param) {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, 'The filter must be a JSON object.');
  const params = [];
  const leaf = (item) => {
    const json = BY_NAME.get(String(item.columnName ?? '').toLowerCase());
    if (json === undefined) throw new HttpError(400, `Column ${item.columnName} cannot be used in a filter: it is not a column of this entity, or it is marked as not filterable.`);
    const condition = String(item.condition ?? '').toUpperCase();
    if (!CONDITIONS.has(condition)) throw new HttpError(400, `Unknown condition ${item.condition}.`);
    const column = quote(COLUMNS[json]);
    if (condition === 'IS NULL' || condition === 'IS NOT NULL') return `${column} ${condition}`;
    if ((condition === 'LIKE' || condition === 'NOT LIKE') && !TEXT.has(json)) throw new HttpError(400, `LIKE needs a text column, not ${item.columnName}.`);
    if (condition === 'IN') {
      if (!Array.isArray(item.value) || item.value.length > 100) throw new HttpError(400, 'IN needs an array of at most 100 values.');
      const list = item.value.map((v) => { params.push(scalar(v)); return param(params.length - 1); });
      return `${column} IN (${list.join(', ')})`;
    }
    params.push(scalar(item.value));
    return `${column} ${condition} ${param(params.length - 1)}`;
  };
  const group = (items, depth) => items.map((item) => {
    if (item !== null && typeof item === 'object' && Array.isArray(item.or)) {
      if (depth >= 4) throw new HttpError(400, 'OR groups nest at most 4 deep.');
      return `(${group(item.or, depth + 1).join(' OR ')})`;
    }
    return leaf(item);
  });
  const where = [`${quote('DeletedAt')} IS NULL`, ...group(Array.isArray(body.where) ? body.where : [], 0)];
  const orderBy = (Array.isArray(body.orderBy) ? body.orderBy : []).map((o) => {
    const json = BY_NAME.get(String(o.columnName ?? '').toLowerCase());
    if (json === undefined) throw new HttpError(400, `Column ${o.columnName} cannot be used in a filter: it is not a column of this entity, or it is marked as not filterable.`);
    const direction = String(o.direction ?? '').toUpperCase();
    return `${quote(COLUMNS[json])}${direction === 'DESC' ? ' DESC' : ''}`;
  });
  let limit = Number(body.limit ?? 0);
  if (!(limit > 0) || limit > 1000) limit = 1000;
  const start = Math.max(0, Number(body.start ?? 0) | 0);
  return { where: where.join(' AND '), orderBy: orderBy.length > 0 ? ` ORDER BY ${orderBy.join(', ')}` : '', params, start, limit };
}

function scalar(v) {
  if (v !== null && typeof v === 'object') throw new HttpError(400, 'A filter value must be a scalar.');
  return typeof v === 'boolean' ? (v ? 1 : 0) : v;
}

/** Reads an id path segment; a non-integer is a 404 like an unknown entity. */
export function parseId(text) {
  const id = Number(text);
  if (!Number.isInteger(id) || id <= 0 || id > 2147483647) throw new HttpError(404, `Entity ${text} not found.`);
  return id;
}
