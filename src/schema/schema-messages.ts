/**
 * Every text of the schema tool, in one place: the errors of mappings it cannot express, the sentences of a
 * diff report and the command's usage and outcomes.
 */
export const SchemaMessages = {
  noSchemaDialect: (engine: string) => `The ${engine} dialect cannot write schemas (it has no SchemaDialect).`,
  decimalDigits: (where: string, engine: string, precision: unknown, scale: unknown, limit: number) =>
    `${where}: decimal(${precision}, ${scale}) cannot be expressed on ${engine}: the precision must be an integer from 1 to ${limit}.`,
  decimalScale: (where: string, engine: string, precision: unknown, scale: unknown, limit: number) =>
    `${where}: decimal(${precision}, ${scale}) cannot be expressed on ${engine}: the scale must be an integer from 0 to the precision, and at most ${limit}.`,
  varcharSize: (where: string, engine: string, size: unknown, limit: number) =>
    `${where}: varchar(${size}) cannot be expressed on ${engine}: the size must be an integer from 1 to ${limit}.`,
  conflictingColumn: (table: string, column: string, first: string, firstType: string, second: string, secondType: string) =>
    `${table}.${column} is mapped by ${first} as ${firstType} and by ${second} as ${secondType}: entities that share a table must declare its columns alike.`,
  conflictingKey: (table: string, first: string, firstKey: string, second: string, secondKey: string) =>
    `${table} has the primary key ${firstKey} in ${first} and ${secondKey} in ${second}: entities that share a table must share its key.`,
  relationColumnUnmapped: (entity: string, table: string, column: string) =>
    `${entity}: @Relation("${table}", "${column}") names a column that no entity of the schema maps in ${table}.`,
  detailColumnUnmapped: (entity: string, property: string, table: string, column: string) =>
    `${entity}.${property}: @DetailColumn names ${table}.${column}, which the child entity does not map.`,
  galeraNeedsSequences: (engine: string) => `Galera sequences (INCREMENT BY 0) are a MariaDB option; ${engine} has no such form.`,

  missingTable: (entity: string, table: string) => `${entity}: table ${table} is missing.`,
  missingColumn: (where: string, table: string, column: string, expected: string) =>
    `${where}: column ${table}.${column} (${expected}) is missing.`,
  addedAcceptingNull: (where: string, table: string, column: string, expected: string) =>
    `${where}: column ${table}.${column} (${expected}) is missing; it is added accepting NULL, because this engine cannot add a NOT NULL column to an existing table.`,
  missingSequence: (entity: string, sequence: string) => `${entity}: sequence ${sequence} is missing.`,
  missingKeyTable: (entity: string, table: string) =>
    `${entity}: the key table ${table}, from which this engine draws their keys, is missing.`,
  missingIndex: (entity: string, table: string, column: string) => `${entity}: no index on ${table}.${column}.`,
  columnType: (where: string, table: string, column: string, actual: string, expected: string) =>
    `${where}: column ${table}.${column} is ${actual} in the database; the mapping wants ${expected}. Not changed: Tenon never alters, narrows or drops a column.`,
  columnSize: (where: string, table: string, column: string, actual: string, expected: string) =>
    `${where}: column ${table}.${column} is ${actual} in the database; the mapping wants ${expected} (another size). Not changed: Tenon never alters, narrows or drops a column.`,
  columnNullability: (where: string, table: string, column: string, actual: string, expected: string) =>
    `${where}: column ${table}.${column} is ${actual} in the database; the mapping wants ${expected}. Not changed: Tenon never alters, narrows or drops a column.`,
  upToDate: "The database schema matches the mapping.",
  mismatch: (count: number) =>
    `The database schema does not match the mapping (${count} difference${count === 1 ? "" : "s"}); the server was not started:`,
  proposedHeader: "-- Additive statements that bring the database up to date (review before applying):",
  notChangedHeader: "-- Not changed (Tenon never drops, narrows or alters a column; change these yourself):",

  usage: [
    "Usage: tenon schema print|diff|apply --url <DATABASE_URL> --entities <module> [--schema <name>] [--galera]",
    "",
    "  print   writes the DDL of the entities for the engine of the URL",
    "  diff    compares the live database with the entities; writes the differences and the additive DDL",
    "  apply   runs the additive DDL (in a transaction on PostgreSQL and SQLite)",
    "",
    "  --url       postgres://..., mariadb://..., or sqlite:<file>",
    "  --entities  a JavaScript module whose exported classes with @Table are the entities",
    "  --schema    a PostgreSQL schema to put first on the search_path",
    "  --galera    MariaDB on a Galera cluster: sequences INCREMENT BY 0",
    "",
    "Exit codes: 0 up to date, 1 differences, 2 error.",
  ].join("\n"),
  missingCommand: "Name a command: print, diff or apply.",
  unknownCommand: (command: string) => `Unknown command "${command}".`,
  missingOption: (option: string) => `The option ${option} is required.`,
  unknownOption: (option: string) => `Unknown option ${option}.`,
  unknownScheme: (scheme: string) => `--url must be postgres://..., mariadb://... or sqlite:<file>, not ${scheme}:...`,
  noEntities: (module: string) => `The module ${module} exports no entity class (a class with @Table).`,
  cannotLoad: (module: string, reason: string) => `The entities module ${module} cannot be loaded: ${reason}`,
  applied: (count: number) => `-- Applied ${count} statement${count === 1 ? "" : "s"}.`,
  nothingToApply: "-- Nothing to apply.",
  remaining: "-- Still different after apply:",
} as const;
