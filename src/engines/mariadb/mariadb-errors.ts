import { SqlError } from "mariadb";
import { DatabaseError, TransientDatabaseError, type TransientKind, UniqueViolationError, UnsafeSequenceError } from "../../errors.js";
import { reasonOf, serverEngineErrors } from "../engine-errors.js";
import { EngineMessages } from "../engine-messages.js";

/** Whether `error` came from the connector (a server error or a connection failure it reported). */
export function isSqlError(error: unknown): error is SqlError {
  return error instanceof SqlError;
}

/** Server error numbers of a conflict: deadlock or Galera certification failure (1213), lock wait timeout (1205). */
const conflictErrors: ReadonlySet<number> = new Set([1213, 1205]);
/** A statement stopped by `max_statement_time` (1969) or by KILL QUERY (1317). */
const timeoutErrors: ReadonlySet<number> = new Set([1969, 1317]);
/**
 * A server that is going away or not ready: shutdown in progress (1053), connection killed (1927), too many
 * connections (1040), a Galera node that is not synced (1047 WSREP has not yet prepared node for application use).
 */
const connectionErrors: ReadonlySet<number> = new Set([1053, 1927, 1040, 1047]);

/**
 * Whether an error means the connection itself is gone (killed, server shutdown, network failure, a Galera
 * node out of the cluster): such a connection is destroyed rather than returned to the pool, and the server
 * has rolled back its transaction.
 */
export function isConnectionLost(error: unknown): boolean {
  if (error instanceof DatabaseError) return false;
  if (!isSqlError(error)) return true;
  // The connector flags a statement stopped while it sent rows as fatal, but the connection serves on.
  return timeoutErrors.has(error.errno) ? false : error.fatal || connectionErrors.has(error.errno);
}

/** The server's error numbers of a duplicate key. */
const duplicateEntryCodes = new Set([1062, 1586]);

/** The transient kind of a connector error (see `TransientKind`), or undefined for a permanent one. */
export function transientKind(error: unknown): TransientKind | undefined {
  if (isSqlError(error) && conflictErrors.has(error.errno)) return "conflict";
  if (isSqlError(error) && timeoutErrors.has(error.errno)) return "timeout";
  return isConnectionLost(error) ? "connection" : undefined;
}

/**
 * Wraps a connector error in the error type the session reports for database failures: a
 * `TransientDatabaseError` for the kinds `transientKind` names (a retry counted safe, except after a
 * timeout; the pooled connection marks what it knows to be in doubt), a `UniqueViolationError` for a
 * duplicate key, a `DatabaseError` otherwise.
 */
export function mariaDbError(error: unknown): DatabaseError {
  if (error instanceof DatabaseError) return error;
  const kind = transientKind(error);
  const lost = kind === "connection";
  if (!isSqlError(error)) {
    const text = EngineMessages.failed("MariaDB", reasonOf(error));
    return kind === undefined
      ? new DatabaseError(text, { cause: error })
      : new TransientDatabaseError(text, kind, true, lost, { cause: error });
  }
  const message = error.text ?? error.message;
  const code = [error.code, error.sqlState === undefined || error.sqlState === null ? undefined : `SQLSTATE ${error.sqlState}`]
    .filter((part) => part !== null && part !== undefined)
    .join(", ");
  const text = (lost ? EngineMessages.connectionLost : EngineMessages.failed)("MariaDB", `${message}${code === "" ? "" : ` (${code})`}.`);
  if (kind !== undefined) return new TransientDatabaseError(text, kind, kind !== "timeout", lost, { cause: error });
  // ER_DUP_ENTRY and ER_DUP_ENTRY_WITH_KEY_NAME: the server names the index only in its text, so which key
  // was hit is left open (the session decides by what it inserted).
  if (duplicateEntryCodes.has(error.errno)) return new UniqueViolationError(text, undefined, { cause: error });
  return new DatabaseError(text, { cause: error });
}

/**
 * The first statement of a session could not get a connection. A server that is away, refusing or not
 * ready (or a pool that found no connection in time) is transient and safe to retry, since nothing was
 * sent; a refused login (1045) or an unknown database (1049) is not.
 */
export function cannotConnect(where: string, error: unknown): DatabaseError {
  const text = EngineMessages.cannotConnect("MariaDB", where, reasonOf(error));
  const refused = isSqlError(error) && (error.errno === 1045 || error.errno === 1049 || error.errno === 1044);
  if (!refused) return new TransientDatabaseError(text, "connection", true, false, { cause: error });
  return new DatabaseError(text, { cause: error });
}

/** The errors MariaDB raises as every server engine does (see `ServerEngineErrors`). */
export const { databaseClosed, connectionGivenBack, missingSequence, notAUrl } = serverEngineErrors(
  "MariaDB",
  "mariadb://user:password@host:3306/database",
);

/** A sequence that a Galera cluster would let two nodes draw the same value from. */
export function unsafeGaleraSequence(quotedName: string, increment: string): UnsafeSequenceError {
  return new UnsafeSequenceError(quotedName, EngineMessages.unsafeGaleraSequence(quotedName, increment));
}
