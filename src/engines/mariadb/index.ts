/**
 * `tenon/mariadb`: MariaDB 10.3 and later, on the official `mariadb` connector.
 * @packageDocumentation
 */
export { MariaDbDatabase, type MariaDbOptions } from "./mariadb-database.js";
export { MariaDbDialect } from "./mariadb-dialect.js";
