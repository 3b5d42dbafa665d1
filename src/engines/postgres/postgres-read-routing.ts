import type { Connection, ReadRouting, ReadTarget } from "../database.js";
import { lsnText, lsnValue, type ReplicaSet, type ReplicaSetMember } from "./postgres-replica-set.js";

/** The WAL position after everything a connection committed: where the next record would be written. */
const tokenSql = "SELECT pg_current_wal_insert_lsn()::text";

/**
 * Read replicas of a multi-host PostgreSQL database as sessions use them (see `ReadRouting`). A consistency
 * token is a WAL position of the primary (`pg_current_wal_insert_lsn()` after the session's writes committed,
 * which is at or after their commit records); a replica serves a read given one once its
 * `pg_last_wal_replay_lsn()` has reached it.
 */
export class PostgresReadRouting implements ReadRouting {
  /** @inheritdoc */
  readonly byDefault: boolean;
  readonly #replicas: ReplicaSet;
  readonly #lend: (member: ReplicaSetMember) => Promise<Connection>;

  /**
   * @param replicas the servers. @param byDefault the database's `replicaReads`. @param lend takes a pooled
   * connection to a replica and lends it to a session.
   */
  constructor(replicas: ReplicaSet, byDefault: boolean, lend: (member: ReplicaSetMember) => Promise<Connection>) {
    this.#replicas = replicas;
    this.byDefault = byDefault;
    this.#lend = lend;
  }

  /** @inheritdoc A replica that cannot be reached leaves the rotation, and the read goes to the primary. */
  async acquireRead(after: string | undefined): Promise<Connection | undefined> {
    const member = await this.#replicas.replicaFor(after === undefined ? undefined : lsnValue(after));
    if (member === undefined) return undefined;
    try {
      return await this.#lend(member);
    } catch {
      this.#replicas.suspect(member);
      return undefined;
    }
  }

  /** @inheritdoc */
  async tokenAfterWrite(connection: Connection): Promise<string | undefined> {
    try {
      const rows = await connection.query(tokenSql, []);
      return this.parseToken(String(rows[0]?.[0] ?? ""));
    } catch {
      return undefined;
    }
  }

  /** @inheritdoc A WAL position `X/Y` in hexadecimal. */
  parseToken(text: string): string | undefined {
    const value = lsnValue(text);
    return value === undefined ? undefined : lsnText(value);
  }

  /** @inheritdoc */
  countRead(target: ReadTarget): void {
    this.#replicas.counters.reads[target]++;
  }
}
