import { settledDisposal } from "../disposal.js";
import type { Connection, Database } from "../engines/database.js";
import { ContextDisposedError } from "../errors.js";
import { statementObservation } from "../observation/statement-observer.js";
import { observeConnection } from "./observed-connection.js";

/**
 * Where a session's connection stands. One field holds it, so that no two fields can disagree (a promise
 * kept for a connection already given back, a connection kept after dispose).
 */
type ConnectionState =
  | { readonly phase: "idle" }
  | { readonly phase: "opening"; readonly pending: Promise<Connection> }
  | { readonly phase: "open"; readonly connection: Connection; readonly ready: Promise<Connection> | undefined }
  | { readonly phase: "disposed" };

const idle: ConnectionState = { phase: "idle" };
const disposed: ConnectionState = { phase: "disposed" };

/**
 * The connection of one session: taken from the database on the first statement (at once when the database
 * can hand one over without waiting), kept until dispose, then given back. A connection that failed to open
 * is forgotten, so that the next statement tries again.
 */
export class SessionConnection {
  readonly #database: Database;
  #state: ConnectionState = idle;

  /** @param database where the connection comes from. */
  constructor(database: Database) {
    this.#database = database;
  }

  /** The dialect of the database the connection comes from. */
  get dialect(): Database["dialect"] {
    return this.#database.dialect;
  }

  /** Whether the session has taken (or is taking) its connection, or is disposed. */
  get taken(): boolean {
    return this.#state !== idle;
  }

  /** The open connection, or one the database hands over without waiting (then it is this session's), or undefined. */
  now(): Connection | undefined {
    const state = this.#state;
    if (state.phase === "open") return state.connection;
    if (state.phase !== "idle") return undefined;
    const acquired = this.#database.acquireNow?.();
    if (acquired === undefined) return undefined;
    const connection = observed(acquired, this.#database);
    this.#state = { phase: "open", connection, ready: undefined };
    return connection;
  }

  /** The session's connection, taken on the first call; rejects once the session is disposed. */
  acquire(): Promise<Connection> {
    const state = this.#state;
    switch (state.phase) {
      case "open":
        if (state.ready !== undefined) return state.ready;
        return this.#open(state.connection, Promise.resolve(state.connection));
      case "opening":
        return state.pending;
      case "disposed":
        return Promise.reject(new ContextDisposedError());
      case "idle": {
        const connection = this.now();
        if (connection !== undefined) return this.acquire();
        const pending =
          statementObservation.current === undefined
            ? this.#database.acquire()
            : this.#database.acquire().then((connection) => observed(connection, this.#database));
        const opening: ConnectionState = { phase: "opening", pending };
        this.#state = opening;
        pending.then(
          (opened) => {
            if (this.#state === opening) this.#open(opened, pending);
          },
          () => {
            if (this.#state === opening) this.#state = idle;
          },
        );
        return pending;
      }
    }
  }

  /**
   * Gives up a connection that was lost, so that the next statement takes a new one from the database (a
   * retry after a lost connection). The lost one goes back to its pool, which closes it.
   */
  forget(): void {
    const state = this.#state;
    if (state.phase !== "open") return;
    this.#state = idle;
    releaseQuietly(state.connection);
  }

  /** Asks the server to stop the statement the open connection runs, if any (see `Connection.cancel`). */
  cancel(): Promise<void> {
    const state = this.#state;
    return (state.phase === "open" ? state.connection.cancel?.() : undefined) ?? Promise.resolve();
  }

  /**
   * Gives the connection back; one still opening goes back when it opens. Safe to call twice. Answers
   * `settledDisposal` when nothing is left to wait for.
   */
  dispose(): Promise<void> {
    const state = this.#state;
    this.#state = disposed;
    if (state.phase === "open") releaseQuietly(state.connection);
    // a connection that never opened has nothing to give back
    if (state.phase === "opening") return state.pending.then(releaseQuietly, () => undefined);
    return settledDisposal;
  }

  #open(connection: Connection, ready: Promise<Connection>): Promise<Connection> {
    this.#state = { phase: "open", connection, ready };
    return ready;
  }
}

/** The connection as the session uses it: wrapped to report its statements while an observer is registered (the one hook point). */
function observed(connection: Connection, database: Database): Connection {
  return observedFor(connection, database.dialect.name);
}

/** `connection` wrapped to report its statements while an observer is registered, the engine named `system`. @internal */
export function observedFor(connection: Connection, system: string): Connection {
  const observer = statementObservation.current;
  return observer === undefined ? connection : observeConnection(connection, observer, system);
}

/** Gives a connection back; a release that throws leaves the session nothing to do, so it is not reported to it. */
function releaseQuietly(connection: Connection): void {
  try {
    connection.release();
  } catch {
    // nothing the session can do about it
  }
}
