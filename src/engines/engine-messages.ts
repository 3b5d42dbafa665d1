/**
 * Every text of the engine layer's own errors, in one place. `engine` is the engine's name as the texts
 * show it (`PostgreSQL`, `MariaDB`, `SQLite`); a driver's own message is passed on as `reason`.
 */
export const EngineMessages = {
  failed: (engine: string, reason: string) => `${engine}: ${reason}`,
  connectionLost: (engine: string, reason: string) => `${engine}: the connection to the server was lost: ${reason}`,
  cannotConnect: (engine: string, where: string, reason: string) => `${engine}: cannot connect to ${where}: ${reason}`,
  databaseClosed: (engine: string, where: string) => `${engine}: the database ${where} has been closed.`,
  connectionGivenBack: (engine: string) => `${engine}: the connection has been given back to the pool or the database was closed.`,
  missingSequence: (engine: string, sequence: string) =>
    `${engine}: the sequence ${sequence} does not exist; create it (CREATE SEQUENCE ${sequence}): Tenon never creates sequences.`,
  notAUrl: (engine: string, example: string) => `${engine}: the connection string is not a URL (${example}).`,
  unsafeGaleraSequence: (sequence: string, increment: string) =>
    `MariaDB Galera: the sequence ${sequence} has INCREMENT BY ${increment}, which lets two nodes hand out the same key; ` +
    `recreate it as CREATE SEQUENCE ${sequence} INCREMENT BY 0 (each node then draws from its own auto_increment_offset, see docs/engines.md).`,
  cannotOpenSqlite: (filename: string, reason: string) => `Cannot open the SQLite database ${filename}: ${reason}`,
  nodeSqliteMissing: (node: string) =>
    `The SQLite driver node:sqlite needs Node.js 22.16 or later; this is Node.js ${node}. Install better-sqlite3 or use a newer Node.js.`,
  betterSqlite3Missing: (node: string, reason: string) =>
    `The SQLite driver better-sqlite3 does not load on Node.js ${node} (${reason}): install it (npm install better-sqlite3, which compiles it where no prebuilt binary fits), or use node:sqlite on Node.js 22.16 or later.`,
  betterSqlite3Aborts: (node: string, version: string) =>
    `better-sqlite3 ${version} aborts the process on Node.js ${node} when a garbage collection finalizes one of its statements (versions before 13 on Node.js 24.19 and later 24.x); it is not loaded: use node:sqlite, or Node.js 22 or 26`,
  noSqliteDriver: (node: string, reason: string) =>
    `No SQLite driver on Node.js ${node}: better-sqlite3 does not load (${reason}; installing it needs a C++ toolchain where no prebuilt binary fits) and node:sqlite needs Node.js 22.16 or later.`,
  sqliteKeysExhausted: (table: string, last: number, keyTable: string) =>
    `SQLite: no key of ${table} is left in the int32 range after ${last}; compact the keys or reset the row of ${keyTable}.`,
  sqliteHasNoSequences: "SQLite has no sequences.",
  closedInsteadOfPooled: "Tenon: connection closed instead of pooled",
  noPrimary: (engine: string, where: string, seen: string) =>
    `${engine}: no server of ${where} is the primary now (${seen}); a failover may be under way.`,
  notPrimaryAnymore: (engine: string, address: string, reason: string) =>
    `${engine}: ${address} no longer takes writes (a failover made another server the primary): ${reason}`,
} as const;
