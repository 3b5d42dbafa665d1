import type { Connection, Database } from "../engines/database.js";
import type { ChangeAction } from "../session/change-capture.js";
import { changeStatementsOf } from "../sql/change-statements.js";
import type { StoredChange } from "./change-record.js";

/** Which records a read of the change log answers. */
export interface ChangeQuery {
  /** Only records after this position (0: from the first). */
  readonly after: number;
  /** At most this many records. */
  readonly limit: number;
  /** Only records of these entities (class names); undefined: every entity. */
  readonly entities?: readonly string[];
  /** Only records without a tenant or of this one; undefined: every tenant's. */
  readonly tenant?: string;
}

/** What the change log can tell of its bounds. */
export interface ChangeBounds {
  /** The last position handed out (0 before the first record). */
  readonly head: number;
  /** The oldest position still kept; undefined when no record is kept. */
  readonly oldest: number | undefined;
}

/** How the records are purged (`ChangeLog.purge`): by age, by count, or both. */
export interface ChangePurge {
  /** Delete the records that committed more than this many milliseconds ago. */
  readonly olderThanMs?: number;
  /** Keep at most this many of the newest records. */
  readonly keep?: number;
}

/**
 * The change records of one database, read in commit order: the reading side of the transactional outbox.
 * Every read takes a connection and gives it back at once, so that no reader holds one while it waits.
 */
export class ChangeLog {
  /** The database whose change tables are read. */
  readonly database: Database;

  /** @param database the database with the change tables (`SchemaOptions.changeFeed`). */
  constructor(database: Database) {
    this.database = database;
  }

  /** The records a query selects, in position order. */
  read(query: ChangeQuery): Promise<StoredChange[]> {
    return this.#with(async (connection) => {
      const statements = changeStatementsOf(this.database.dialect);
      const entities = query.entities ?? [];
      const parameters: unknown[] = [...entities];
      if (query.tenant !== undefined) parameters.push(query.tenant);
      parameters.push(query.after, query.limit, 0);
      const rows = await connection.query(statements.after(entities.length, query.tenant !== undefined), parameters);
      return rows.map(storedChange);
    });
  }

  /** The last position handed out and the oldest one kept. */
  bounds(): Promise<ChangeBounds> {
    return this.#with(async (connection) => {
      const statements = changeStatementsOf(this.database.dialect);
      const counter = await connection.query(statements.readCounter, []);
      const oldest = (await connection.query(statements.oldest, []))[0]?.[0];
      return {
        head: counter.length === 0 ? 0 : Number(counter[0][0]),
        oldest: oldest === null || oldest === undefined ? undefined : Number(oldest),
      };
    });
  }

  /**
   * Deletes the oldest records: those older than `olderThanMs` and those beyond the newest `keep`, always from
   * the oldest on, so that what is kept has no gap. Answers the number deleted. Positions are never reused.
   */
  purge(purge: ChangePurge): Promise<number> {
    return this.#with(async (connection) => {
      const statements = changeStatementsOf(this.database.dialect);
      let upTo = -1;
      if (purge.keep !== undefined) {
        const counter = await connection.query(statements.readCounter, []);
        const head = counter.length === 0 ? 0 : Number(counter[0][0]);
        upTo = Math.max(upTo, head - purge.keep);
      }
      if (purge.olderThanMs !== undefined) {
        const first = (await connection.query(statements.firstSince, [Date.now() - purge.olderThanMs]))[0]?.[0];
        if (first === null || first === undefined) {
          const counter = await connection.query(statements.readCounter, []);
          upTo = Math.max(upTo, counter.length === 0 ? 0 : Number(counter[0][0]));
        } else upTo = Math.max(upTo, Number(first) - 1);
      }
      if (upTo < 1) return 0;
      return connection.execute(statements.purgeUpTo, [upTo]);
    });
  }

  async #with<R>(work: (connection: Connection) => Promise<R>): Promise<R> {
    const connection = await this.database.acquire();
    try {
      return await work(connection);
    } finally {
      connection.release();
    }
  }
}

function storedChange(row: unknown[]): StoredChange {
  return {
    position: Number(row[0]),
    entity: String(row[1]),
    key: Number(row[2]),
    action: String(row[3]) as ChangeAction,
    version: row[4] === null || row[4] === undefined ? null : Number(row[4]),
    data: row[5] === null || row[5] === undefined ? null : String(row[5]),
    user: String(row[6] ?? ""),
    tenant: row[7] === null || row[7] === undefined ? null : String(row[7]),
    changedAt: Number(row[8]),
  };
}
