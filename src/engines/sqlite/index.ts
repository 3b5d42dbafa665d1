/**
 * `tenon/sqlite`: the embedded engine, Tenon's default, on better-sqlite3 or on Node.js's own `node:sqlite`
 * (`SqliteOptions.driver`).
 * @packageDocumentation
 */
export { SqliteDatabase, type SqliteOptions } from "./sqlite-database.js";
export { SqliteDialect } from "./sqlite-dialect.js";
export type { SqliteDriverName } from "./sqlite-driver.js";
