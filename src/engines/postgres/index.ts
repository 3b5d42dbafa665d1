/**
 * `tenon/postgres`: PostgreSQL and the engines that speak its protocol, on the `pg` driver.
 * @packageDocumentation
 */
export { PostgresDatabase, type PostgresOptions } from "./postgres-database.js";
export { PostgresDialect } from "./postgres-dialect.js";
