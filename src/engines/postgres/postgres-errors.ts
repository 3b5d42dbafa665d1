import pg from "pg";
import { DatabaseError, TransientDatabaseError, type TransientKind, UniqueViolationError } from "../../errors.js";
import { reasonOf, serverEngineErrors } from "../engine-errors.js";
import { EngineMessages } from "../engine-messages.js";

/** The SQLSTATE of an error the server sent, or undefined for an error of the driver or the network. */
export function sqlState(error: unknown): string | undefined {
  return error instanceof pg.DatabaseError ? error.code : undefined;
}

/**
 * Whether an error means the connection itself is gone (network failure, server shutdown, terminated
 * backend): such a connection is closed rather than returned to the pool, and its transaction is over.
 * An error that did not come from the server is taken as a lost connection: discarding a connection
 * that was still good costs one reconnect, keeping a broken one fails the next session.
 */
export function isConnectionLost(error: unknown): boolean {
  const state = sqlState(error);
  if (state === undefined) return !(error instanceof DatabaseError);
  return state.startsWith("57P") || (state.startsWith("08") && state !== "08P01");
}

/**
 * The transient kind of a driver error, or undefined for a permanent one. Serialization failures and
 * deadlocks (40001, 40P01) are conflicts: the server rolled the transaction back. A cancelled statement
 * (57014: statement_timeout, or Tenon's cancel request for a client that has gone) is a timeout. A lost
 * connection, a server shutting down or starting (57P01-57P03, 08xxx) is a connection failure.
 */
export function transientKind(error: unknown): TransientKind | undefined {
  const state = sqlState(error);
  if (state === "40001" || state === "40P01") return "conflict";
  if (state === "57014") return "timeout";
  return isConnectionLost(error) ? "connection" : undefined;
}

/**
 * Wraps a driver error in the error type the session reports for database failures: a
 * `TransientDatabaseError` for the kinds `transientKind` names (a retry counted safe, except after a
 * timeout; the pooled connection marks what it knows to be in doubt), a `DatabaseError` otherwise.
 */
export function postgresError(error: unknown): DatabaseError {
  if (error instanceof DatabaseError) return error;
  const message = reasonOf(error);
  const state = sqlState(error);
  const code = state === undefined ? "" : ` (SQLSTATE ${state})`;
  const kind = transientKind(error);
  if (kind === undefined) {
    const text = EngineMessages.failed("PostgreSQL", `${message}${code}.`);
    // 23505 unique_violation. The primary key's own conflicts never get here from Tenon's INSERT, which says
    // ON CONFLICT (key) DO NOTHING and counts the rows, so which index was hit is left open.
    if (state === "23505") return new UniqueViolationError(text, undefined, { cause: error });
    return new DatabaseError(text, { cause: error });
  }
  const lost = kind === "connection";
  const text = (lost ? EngineMessages.connectionLost : EngineMessages.failed)("PostgreSQL", `${message}${code}.`);
  return new TransientDatabaseError(text, kind, kind !== "timeout", lost, { cause: error });
}

/**
 * The first statement of a session could not get a connection. A server that is away, refusing, starting
 * or shutting down (or a pool that found no free connection in time) is transient and safe to retry, since
 * nothing was sent; a refused login or an unknown database is not.
 */
export function cannotConnect(where: string, error: unknown): DatabaseError {
  const text = EngineMessages.cannotConnect("PostgreSQL", where, reasonOf(error));
  const state = sqlState(error);
  const transient =
    state === undefined ? !(error instanceof DatabaseError) : state.startsWith("57P") || state.startsWith("08") || state === "53300";
  if (transient) return new TransientDatabaseError(text, "connection", true, false, { cause: error });
  return new DatabaseError(text, { cause: error });
}

/** The errors PostgreSQL raises as every server engine does (see `ServerEngineErrors`). */
export const { databaseClosed, connectionGivenBack, missingSequence, notAUrl } = serverEngineErrors(
  "PostgreSQL",
  "postgres://user:password@host:5432/database",
);

/**
 * A failure on a server of a multi-host database: as `postgresError`, except that a write refused because the
 * server is in recovery (25006: it was the primary and is a replica now, after a failover) is a retry-safe
 * connection failure (nothing was written, and another server takes the writes now), so that the unit of work
 * runs again on the new primary, or is answered 503.
 */
export function clusterError(address: string): (error: unknown) => DatabaseError {
  return (error) => {
    if (sqlState(error) !== "25006") return postgresError(error);
    return new TransientDatabaseError(EngineMessages.notPrimaryAnymore("PostgreSQL", address, reasonOf(error)), "connection", true, true, {
      cause: error,
    });
  };
}
