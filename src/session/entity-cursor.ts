import { ArrayCursor } from "../engines/array-cursor.js";
import type { Connection, Database, RowCursor } from "../engines/database.js";
import type { Filter } from "../filter/filter.js";
import type { EntityMapping } from "../mapping/entity-mapping.js";
import type { EntityMaterializer } from "./entity-materializer.js";
import { sessionStatements, sessionTenant, type TenantSource } from "./tenant-scope.js";
import type { PolicyLookup } from "./policy-scope.js";

/** How `Context.openCursor` reads. */
export interface EntityCursorOptions {
  /** The entities `read` answers at a time (default 500). */
  readonly batchSize?: number;
}

/** The default of `EntityCursorOptions.batchSize`. */
export const defaultCursorBatchSize = 500;

/**
 * The entities a filter selects, read a batch at a time (`Context.openCursor`): a result of any size takes the
 * memory of one batch. The query runs on a connection of its own, taken from the database when the cursor
 * opens and given back when it closes, in a read-only snapshot (a server-side cursor on PostgreSQL, a paused
 * result stream on MariaDB, a statement stepped on a read-only connection on SQLite). The entities are new
 * instances, not kept in the session's identity map; their references and details load through the session.
 * Close it (or `await using` it): a cursor left open keeps its connection and its snapshot.
 */
export class EntityCursor<T extends object> implements AsyncDisposable {
  readonly #mapping: EntityMapping<T>;
  readonly #rows: RowCursor;
  readonly #connection: Connection;
  readonly #entities: EntityMaterializer;
  readonly #batchSize: number;
  readonly #onClosed: (cursor: ClosableCursor) => void;
  #closing: Promise<void> | undefined;

  /** @internal `Context.openCursor` opens it. */
  constructor(
    mapping: EntityMapping<T>,
    rows: RowCursor,
    connection: Connection,
    entities: EntityMaterializer,
    batchSize: number,
    onClosed: (cursor: ClosableCursor) => void,
  ) {
    this.#mapping = mapping;
    this.#rows = rows;
    this.#connection = connection;
    this.#entities = entities;
    this.#batchSize = batchSize;
    this.#onClosed = onClosed;
  }

  /** The next entities, `batchSize` of them (fewer only at the end; none once every row was read, or after `close`). */
  async read(): Promise<T[]> {
    if (this.#closing !== undefined) return [];
    const rows = await this.#rows.read(this.#batchSize);
    const mapping = this.#mapping;
    return rows.map((row) => this.#entities.materializeDetached(mapping, row));
  }

  /**
   * Ends the read: a statement still running on the server is stopped (the client of an export has gone), and
   * the connection goes back to the database. Never rejects; a second call does nothing.
   */
  close(): Promise<void> {
    this.#closing ??= this.#rows.close().then(() => {
      this.#connection.release();
      this.#onClosed(this);
    });
    return this.#closing;
  }

  /** Same as `close()`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** A cursor as the session that keeps it open sees it. */
export interface ClosableCursor {
  close(): Promise<void>;
}

/** What opening a cursor needs of its session. */
export interface CursorSession {
  readonly database: Database;
  /** The session's tenant, and its caller's policies. */
  readonly tenants: TenantSource & PolicyLookup;
  readonly entities: EntityMaterializer;
  /** Told when the cursor closes (the session closes those still open when it is disposed). */
  readonly onClosed: (cursor: ClosableCursor) => void;
}

/**
 * Opens a cursor on what `filter` selects of `mapping`'s entities in the session's scope (its tenant, the
 * soft-delete guard, the filter's order and page, and of an entity with a `@Policy` the rows its rules grant the
 * caller for `export`), on a connection of its own.
 */
export async function openEntityCursor<T extends object>(
  session: CursorSession,
  mapping: EntityMapping<T>,
  filter: Filter,
  options: EntityCursorOptions | undefined,
): Promise<EntityCursor<T>> {
  const dialect = session.database.dialect;
  const statements = sessionStatements(session.tenants, mapping, dialect);
  // A governed entity's rows are those its policy grants the caller for `export`.
  const guard = mapping.hasPolicy ? session.tenants.callerPolicy(mapping)?.rows("export") : undefined;
  const statement = statements.select(filter, statements.where(filter, sessionTenant(session.tenants, mapping), guard));
  const { rows, connection } = await openStatementCursor(session.database, statement.sql, statement.parameters, statements.exactIntegers);
  return new EntityCursor(mapping, rows, connection, session.entities, batchSizeOf(options), session.onClosed);
}

/** The batch size a cursor reads with: the option's, at least 1, or the default. */
export function batchSizeOf(options: EntityCursorOptions | undefined): number {
  return Math.max(1, Math.trunc(options?.batchSize ?? defaultCursorBatchSize));
}

/**
 * A cursor on a statement, on a connection taken from the database for it (the caller releases it when the
 * cursor is closed). An engine without `openCursor` reads the whole result at once.
 */
export async function openStatementCursor(
  database: Database,
  sql: string,
  parameters: readonly unknown[],
  exactIntegers: boolean,
): Promise<{ readonly rows: RowCursor; readonly connection: Connection }> {
  const connection = await database.acquire();
  try {
    const rows =
      connection.openCursor === undefined
        ? new ArrayCursor(await connection.query(sql, parameters, exactIntegers))
        : await connection.openCursor(sql, parameters, exactIntegers);
    return { rows, connection };
  } catch (error) {
    connection.release();
    throw error;
  }
}
