import type { Connection, RowCursor } from "../engines/database.js";
import type { AggregateQuery } from "../filter/aggregate-query.js";
import type { EntityClass } from "../mapping/column-type.js";
import type { AggregateStatement } from "../sql/aggregate-statements.js";
import type { Dialect } from "../sql/dialect.js";
import { batchSizeOf, type ClosableCursor, type CursorSession, type EntityCursorOptions, openStatementCursor } from "./entity-cursor.js";
import { type AggregateRow, prepareAggregate, readAggregateRow } from "./session-aggregates.js";

/**
 * The groups of an aggregate, read a batch at a time (`Context.openAggregateCursor`), as `EntityCursor` reads
 * entities: on a connection of its own, in a read-only snapshot, so that an answer of any number of groups
 * takes the memory of one batch. The query's `limit` is the caller's own (absent: every group).
 */
export class AggregateCursor implements AsyncDisposable {
  readonly #dialect: Dialect;
  readonly #query: AggregateQuery;
  readonly #statement: AggregateStatement;
  readonly #rows: RowCursor;
  readonly #connection: Connection;
  readonly #batchSize: number;
  readonly #onClosed: (cursor: ClosableCursor) => void;
  #left: number;
  #groupCount: number | undefined;
  #closing: Promise<void> | undefined;

  /** @internal `Context.openAggregateCursor` opens it. */
  constructor(
    dialect: Dialect,
    query: AggregateQuery,
    statement: AggregateStatement,
    rows: RowCursor,
    connection: Connection,
    batchSize: number,
    onClosed: (cursor: ClosableCursor) => void,
  ) {
    this.#dialect = dialect;
    this.#query = query;
    this.#statement = statement;
    this.#rows = rows;
    this.#connection = connection;
    this.#batchSize = batchSize;
    this.#onClosed = onClosed;
    this.#left = query.limit ?? Number.POSITIVE_INFINITY;
  }

  /** The number of groups the question has (after `having`, before `limit`), known once the first batch was read (0 when there is none). */
  get groupCount(): number | undefined {
    return this.#groupCount;
  }

  /** The next groups, `batchSize` of them (fewer only at the end; none once every group was read, or after `close`). */
  async read(): Promise<AggregateRow[]> {
    if (this.#closing !== undefined || this.#left <= 0) return [];
    const rows = await this.#rows.read(Math.min(this.#batchSize, this.#left));
    this.#groupCount ??= rows.length === 0 ? 0 : Number(rows[0][this.#statement.layout.groupCount]);
    this.#left -= rows.length;
    return rows.map((row) => readAggregateRow(this.#dialect, this.#query, this.#statement, row));
  }

  /** Ends the read, stopping a statement still running on the server; never rejects; a second call does nothing. */
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

/** Opens a cursor on the groups of `query` over `entityClass`'s rows in the session's scope. */
export async function openAggregateCursor<T extends object>(
  session: CursorSession,
  entityClass: EntityClass<T>,
  query: AggregateQuery,
  options: EntityCursorOptions | undefined,
): Promise<AggregateCursor> {
  const dialect = session.database.dialect;
  // The statement of a page reads one group beyond its limit: the cursor stops at the limit itself.
  const { statement } = prepareAggregate(dialect, session.tenants, entityClass, { ...query, limit: undefined });
  const { rows, connection } = await openStatementCursor(session.database, statement.sql, statement.parameters, true);
  return new AggregateCursor(dialect, query, statement, rows, connection, batchSizeOf(options), session.onClosed);
}
