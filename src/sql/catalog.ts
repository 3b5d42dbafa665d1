/** One column of the live database, as the engine's catalogue describes it. */
export interface CatalogColumn {
  /** The column name as the catalogue spells it. */
  readonly name: string;
  /** The SQL type written the way `SchemaDialect.columnType` writes it (`VARCHAR(100)`, `NUMERIC(18, 2)`), so the two compare. */
  readonly type: string;
  /** Whether the column accepts NULL. */
  readonly nullable: boolean;
}

/** One table of the live database. */
export interface CatalogTable {
  /** The table name as the catalogue spells it. */
  readonly name: string;
  /** The column a mapping name reaches, folded the way the engine's queries fold it. */
  column(name: string): CatalogColumn | undefined;
  /** Whether an index (the primary key's included) starts with the column a mapping name reaches. */
  isIndexed(column: string): boolean;
}

/** What the schema tool reads of a live database: the tables and sequences of the current schema or database. */
export interface Catalog {
  /** The table a mapping name reaches, folded the way the engine's queries fold it. */
  table(name: string): CatalogTable | undefined;
  /** Whether the sequence a mapping name reaches exists. */
  hasSequence(name: string): boolean;
}

/**
 * How an engine matches names: `stored` turns a name the catalogue holds into a key, `lookup` turns a
 * mapping name into the key of the object the engine's queries reach. PostgreSQL folds what Tenon quotes to
 * lower case but keeps a quoted mixed-case name as it is, so there the two differ.
 */
export interface NameFolding {
  /** The key of a name as stored. */
  stored(name: string): string;
  /** The key of a mapping name. */
  lookup(name: string): string;
}

/** Folding for engines that compare names without case (SQLite; MariaDB column names). */
export const caseInsensitive: NameFolding = { stored: (name) => name.toLowerCase(), lookup: (name) => name.toLowerCase() };

/** Folding for names compared exactly (MariaDB table names on a case-sensitive server). */
export const caseSensitive: NameFolding = { stored: (name) => name, lookup: (name) => name };

/** PostgreSQL's folding: Tenon's quoted names are lower case, a name stored with capitals is not reached. */
export const lowerCaseFolding: NameFolding = { stored: (name) => name, lookup: (name) => name.toLowerCase() };

/** Values by name, a name matching as a `NameFolding` says: stored names on the way in, looked-up names on the way out. */
class FoldedNames<V> {
  readonly #values = new Map<string, V>();
  readonly #folding: NameFolding;

  constructor(folding: NameFolding) {
    this.#folding = folding;
  }

  set(storedName: string, value: V): void {
    this.#values.set(this.#folding.stored(storedName), value);
  }

  /** The value of a name as stored, or undefined. */
  stored(name: string): V | undefined {
    return this.#values.get(this.#folding.stored(name));
  }

  /** The value a mapping name reaches, or undefined. */
  lookup(name: string): V | undefined {
    return this.#values.get(this.#folding.lookup(name));
  }
}

class CatalogTableSnapshot implements CatalogTable {
  readonly name: string;
  readonly columns: FoldedNames<CatalogColumn>;
  readonly indexed: FoldedNames<true>;

  constructor(name: string, folding: NameFolding) {
    this.name = name;
    this.columns = new FoldedNames(folding);
    this.indexed = new FoldedNames(folding);
  }

  column(name: string): CatalogColumn | undefined {
    return this.columns.lookup(name);
  }

  isIndexed(column: string): boolean {
    return this.indexed.lookup(column) === true;
  }
}

/** A catalogue read once, filled by an engine's reader row by row. */
export class CatalogSnapshot implements Catalog {
  readonly #tables: FoldedNames<CatalogTableSnapshot>;
  readonly #sequences: FoldedNames<true>;
  readonly #columnFolding: NameFolding;

  /** @param tableFolding how table and sequence names match. @param columnFolding how column names match. */
  constructor(tableFolding: NameFolding, columnFolding: NameFolding) {
    this.#tables = new FoldedNames(tableFolding);
    this.#sequences = new FoldedNames(tableFolding);
    this.#columnFolding = columnFolding;
  }

  /** Records a column of a table (the table is recorded with its first column). */
  addColumn(table: string, column: CatalogColumn): void {
    let snapshot = this.#tables.stored(table);
    if (snapshot === undefined) this.#tables.set(table, (snapshot = new CatalogTableSnapshot(table, this.#columnFolding)));
    snapshot.columns.set(column.name, column);
  }

  /** Records that an index starts with `column` of `table`; tables the reader did not list are ignored. */
  addIndexed(table: string, column: string): void {
    this.#tables.stored(table)?.indexed.set(column, true);
  }

  /** Records a sequence. */
  addSequence(name: string): void {
    this.#sequences.set(name, true);
  }

  /** @inheritdoc */
  table(name: string): CatalogTable | undefined {
    return this.#tables.lookup(name);
  }

  /** @inheritdoc */
  hasSequence(name: string): boolean {
    return this.#sequences.lookup(name) === true;
  }
}

/** Writes a catalogue type the way Tenon's DDL writes types: upper case, single spaces, `(18, 2)`. */
export function canonicalTypeName(type: string): string {
  return type
    .trim()
    .toUpperCase()
    .replace(/\s+/g, " ")
    .replace(/\s*\(\s*/g, "(")
    .replace(/\s*,\s*/g, ", ")
    .replace(/\s*\)/g, ")");
}
