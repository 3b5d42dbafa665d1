import { settledDisposal } from "../disposal.js";
import type { Connection, ReadRouting } from "../engines/database.js";
import { ContextDisposedError } from "../errors.js";
import { observedFor, type SessionConnection } from "./session-connection.js";

/** Where the reads of a session take their connection: the session's own, or a routed one. */
export interface ReadSource {
  /** The connection at once, when there is one without waiting; undefined: call `acquire`. */
  now(): Connection | undefined;
  /** The connection the next read runs on. */
  acquire(): Promise<Connection>;
}

/** What a session says about its reads, asked at each read. */
export interface ReadPreferences {
  /** The session's `replicaReads` (undefined: the database's default). */
  readonly replicaReads: boolean | undefined;
  /** The consistency token the session's reads must be at least as new as, if any. */
  readonly readAfter: string | undefined;
}

/**
 * The reads of a session on a database with read replicas (`Database.readRouting`): while the session has not
 * touched its own connection (no write, no transaction, no SQL of the application), and its preferences allow,
 * a read runs on a replica's connection of its own, taken from `acquireRead` at the first read. When no replica
 * serves (none in rotation, or none reached the session's token in time), and from the session's first use of
 * its own connection on, reads run on the session's own connection to the primary, and the replica's is given
 * back: a session never holds two connections to the primary, so sessions waiting for the primary's pool can
 * never hold each other up. Each read statement is counted by where it ran.
 */
export class RoutedReads implements ReadSource {
  readonly #primary: SessionConnection;
  readonly #routing: ReadRouting;
  readonly #preferences: ReadPreferences;
  /** The connection of the routed reads, once asked for: a replica's, or (none serving) the session's own. */
  #reading: Promise<Connection> | undefined = undefined;
  /** The replica's connection `#reading` settled with, if it did with one. */
  #replica: Connection | undefined = undefined;
  /** Set once the session reads from the primary: from then on it reads there. */
  #onPrimary = false;
  /** The session's own connection, once its reads waited for the token there (`ReadRouting.waitFor`). */
  #waited: Promise<Connection> | undefined = undefined;
  #disposed = false;

  /** @param primary the session's connection. @param routing the database's. @param preferences the session's. */
  constructor(primary: SessionConnection, routing: ReadRouting, preferences: ReadPreferences) {
    this.#primary = primary;
    this.#routing = routing;
    this.#preferences = preferences;
  }

  /** @inheritdoc Never at once: each read goes through `acquire`, which decides and counts it. */
  now(): undefined {
    return undefined;
  }

  /**
   * @inheritdoc No promise of its own in between once the connection is known: a read runs on it in the same turn
   * as without routing (a session disposed while its read is opening still sends that read first).
   */
  acquire(): Promise<Connection> {
    if (this.#usesPrimary()) {
      this.#routing.countRead("primary");
      return this.#ownConnection();
    }
    const reading = this.#reading;
    if (reading !== undefined) {
      // The first read is counted where it lands, below.
      if (this.#replica !== undefined) this.#routing.countRead("replica");
      return reading;
    }
    if (this.#disposed) return Promise.reject(new ContextDisposedError());
    const opening = this.#routing.acquireRead(this.#preferences.readAfter).then((connection) => {
      if (connection === undefined) {
        this.#routing.countRead("primary");
        this.#onPrimary = true;
        this.#reading = undefined;
        return this.#ownConnection();
      }
      const replica = observedFor(connection, this.#primary.dialect.name);
      this.#replica = replica;
      this.#routing.countRead("replica");
      // Disposed meanwhile: the read that asked for it runs first, then it goes back.
      if (this.#disposed) void this.#release(opening);
      return replica;
    });
    this.#reading = opening;
    // A read that could not get its connection is forgotten: the next read tries again.
    opening.catch(() => {
      if (this.#reading === opening) this.#reading = undefined;
    });
    return opening;
  }

  /** Gives a replica's connection up after it was lost (before a retry), so that the next read takes another. */
  forget(): void {
    const reading = this.#reading;
    this.#reading = undefined;
    if (reading !== undefined) void this.#release(reading);
  }

  /** Gives the replica's connection back (the session gives its own back itself). Safe to call twice. */
  dispose(): Promise<void> {
    this.#disposed = true;
    const reading = this.#reading;
    this.#reading = undefined;
    return reading === undefined ? settledDisposal : this.#release(reading);
  }

  /** Gives back the replica's connection `reading` settles with, once it has (the read that asked for it is sent first). */
  #release(reading: Promise<Connection>): Promise<void> {
    return reading.then(
      (connection) => {
        if (connection !== this.#replica) return;
        this.#replica = undefined;
        try {
          connection.release();
        } catch {
          // nothing the session can do about it
        }
      },
      () => undefined,
    );
  }

  /** The session's own connection for a read: where the engine needs it, first made as new as the session's token. */
  #ownConnection(): Promise<Connection> {
    const after = this.#preferences.readAfter;
    const routing = this.#routing;
    if (after === undefined || routing.waitFor === undefined) return this.#primary.acquire();
    const waited = this.#waited;
    if (waited !== undefined) return waited;
    const waiting = this.#primary.acquire().then(async (connection) => {
      await routing.waitFor?.(connection, after);
      return connection;
    });
    this.#waited = waiting;
    // A wait that failed is tried again by the next read.
    waiting.catch(() => {
      if (this.#waited === waiting) this.#waited = undefined;
    });
    return waiting;
  }

  #usesPrimary(): boolean {
    if (this.#onPrimary) return true;
    if (this.#primary.taken) {
      // The session wrote (or began a transaction, or ran SQL of its own): its reads follow it to the primary.
      this.#onPrimary = true;
      this.forget();
      return true;
    }
    return !(this.#preferences.replicaReads ?? this.#routing.byDefault);
  }
}
