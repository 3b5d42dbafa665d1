/**
 * `tenon/sqlite`: the embedded engine on better-sqlite3, Tenon's default.
 * @packageDocumentation
 */
export { SqliteDatabase, type SqliteOptions } from "./sqlite-database.js";
export { SqliteDialect } from "./sqlite-dialect.js";
