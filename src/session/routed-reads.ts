import type { Connection, ReadRouting, ReadTarget } from "../engines/database.js";
import { SessionConnection } from "./session-connection.js";

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
 * The reads of a session on a database with read replicas (`Database.readRouting`): while the session has
 * not touched its own connection (no write, no transaction, no SQL of the application), and its preferences
 * allow, a read runs on a connection of its own from `acquireRead`, a replica (or the primary, when no replica
 * serves); from the session's first use of its own connection on, every read runs there, and the read
 * connection is given back. Each read statement is counted by where it ran.
 */
export class RoutedReads implements ReadSource {
  readonly #primary: SessionConnection;
  readonly #routing: ReadRouting;
  readonly #preferences: ReadPreferences;
  /** The connection of the routed reads, taken on the first one. */
  readonly #reader: SessionConnection;
  /** Where the routed connection reads, once taken. */
  #target: ReadTarget | undefined = undefined;
  /** Set once the session used its own connection: from then on it reads there. */
  #onPrimary = false;

  /** @param primary the session's connection. @param routing the database's. @param preferences the session's. */
  constructor(primary: SessionConnection, routing: ReadRouting, preferences: ReadPreferences) {
    this.#primary = primary;
    this.#routing = routing;
    this.#preferences = preferences;
    this.#reader = new SessionConnection({
      dialect: primary.dialect,
      acquire: async () => {
        const read = await routing.acquireRead(preferences.readAfter);
        this.#target = read.target;
        return read.connection;
      },
    });
  }

  /** @inheritdoc Never at once: each read goes through `acquire`, which decides and counts it. */
  now(): undefined {
    return undefined;
  }

  /** @inheritdoc */
  acquire(): Promise<Connection> {
    if (this.#usesPrimary()) {
      this.#routing.countRead("primary");
      return this.#primary.acquire();
    }
    const target = this.#target;
    if (target !== undefined) {
      this.#routing.countRead(target);
      return this.#reader.acquire();
    }
    return this.#reader.acquire().then((connection) => {
      this.#routing.countRead(this.#target ?? "primary");
      return connection;
    });
  }

  /** Gives the routed connection back (the session gives its own back itself). */
  dispose(): Promise<void> {
    return this.#reader.dispose();
  }

  #usesPrimary(): boolean {
    if (this.#onPrimary) return true;
    if (this.#primary.taken || !(this.#preferences.replicaReads ?? this.#routing.byDefault)) {
      this.#onPrimary = this.#primary.taken;
      if (this.#onPrimary) void this.#reader.dispose();
      return true;
    }
    return false;
  }
}
