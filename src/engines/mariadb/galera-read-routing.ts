import type { Connection, ReadRouting, ReadTarget } from "../database.js";

/** A Galera GTID as MariaDB writes it: domain, server and sequence number (`0-1-1234`). */
const gtidPattern = /^\d{1,10}-\d{1,10}-\d{1,20}$/;

/**
 * Consistency tokens on a MariaDB Galera cluster, where every node takes writes and a node applies the others'
 * writes a moment after they commit. A token is the GTID the session's node had seen after its writes
 * (`WSREP_LAST_SEEN_GTID()`); a session given one waits, before its first read, until its own node has applied
 * it (`WSREP_SYNC_WAIT_UPTO_GTID`, for at most `consistencyWait`), so that a client reads its own writes through
 * any node without every read paying `wsrep_sync_wait`. There are no replicas: every read runs on the session's
 * own connection.
 */
export class GaleraReadRouting implements ReadRouting {
  /** @inheritdoc No replicas: reads stay on the session's connection. */
  readonly byDefault = false;
  readonly #waitSeconds: number;
  readonly #isGalera: () => boolean;

  /** @param consistencyWait milliseconds a read waits for its token (whole seconds, at least one). @param isGalera whether the server is a Galera node. */
  constructor(consistencyWait: number, isGalera: () => boolean) {
    this.#waitSeconds = Math.max(1, Math.ceil(consistencyWait / 1000));
    this.#isGalera = isGalera;
  }

  /** @inheritdoc Never a connection of its own: a Galera session reads where it writes. */
  acquireRead(): Promise<Connection | undefined> {
    return Promise.resolve(undefined);
  }

  /** @inheritdoc Undefined on a server that is not a Galera node. */
  async tokenAfterWrite(connection: Connection): Promise<string | undefined> {
    if (!this.#isGalera()) return undefined;
    try {
      const rows = await connection.query("SELECT WSREP_LAST_SEEN_GTID()", []);
      return this.parseToken(String(rows[0]?.[0] ?? ""));
    } catch {
      return undefined;
    }
  }

  /** @inheritdoc A GTID `domain-server-seqno`. */
  parseToken(text: string): string | undefined {
    return gtidPattern.test(text) ? text : undefined;
  }

  /** @inheritdoc Waits on the session's node; a node that has not applied it in time fails the read with error 1205, a transient conflict. */
  async waitFor(connection: Connection, after: string): Promise<void> {
    if (!this.#isGalera()) return;
    await connection.query("SELECT WSREP_SYNC_WAIT_UPTO_GTID(?, ?)", [after, this.#waitSeconds]);
  }

  /** @inheritdoc Every read runs on the session's own node: nothing to tell apart. */
  countRead(_target: ReadTarget): void {}
}
