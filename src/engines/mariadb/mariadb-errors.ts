import { SqlError } from "mariadb";
import { DatabaseError, UniqueViolationError } from "../../errors.js";

/** Whether `error` came from the connector (a server error or a connection failure it reported). */
export function isSqlError(error: unknown): error is SqlError {
  return error instanceof SqlError;
}

/**
 * Whether an error means the connection itself is gone (killed, server shutdown, network failure): such a
 * connection is destroyed rather than returned to the pool, and the server has rolled back its transaction.
 */
export function isConnectionLost(error: unknown): boolean {
  if (error instanceof DatabaseError) return false;
  return isSqlError(error) ? error.fatal : true;
}

/** The server's error numbers of a duplicate key. */
const duplicateEntryCodes = new Set([1062, 1586]);

/** Wraps a connector error in the one error type the session reports for database failures. */
export function mariaDbError(error: unknown): DatabaseError {
  if (error instanceof DatabaseError) return error;
  if (!isSqlError(error)) return new DatabaseError(`MariaDB: ${(error as Error | null)?.message ?? String(error)}`, { cause: error });
  const message = error.text ?? error.message;
  const code = [error.code, error.sqlState === undefined || error.sqlState === null ? undefined : `SQLSTATE ${error.sqlState}`]
    .filter((part) => part !== null && part !== undefined)
    .join(", ");
  const prefix = error.fatal ? "MariaDB: the connection to the server was lost: " : "MariaDB: ";
  // ER_DUP_ENTRY and ER_DUP_ENTRY_WITH_KEY_NAME: the server names the index only in its text, so which key
  // was hit is left open (the session decides by what it inserted).
  if (duplicateEntryCodes.has(error.errno))
    return new UniqueViolationError(`${prefix}${message}${code === "" ? "" : ` (${code})`}.`, undefined, { cause: error });
  return new DatabaseError(`${prefix}${message}${code === "" ? "" : ` (${code})`}.`, { cause: error });
}

/** The first statement of a session could not get a connection. */
export function cannotConnect(where: string, error: unknown): DatabaseError {
  return new DatabaseError(`MariaDB: cannot connect to ${where}: ${(error as Error | null)?.message ?? String(error)}`, { cause: error });
}

/** A session asked a closed database for a connection. */
export function databaseClosed(where: string): DatabaseError {
  return new DatabaseError(`MariaDB: the database ${where} has been closed.`);
}

/** A statement on a connection already given back (the session was disposed, or the database closed under it). */
export function connectionGivenBack(): DatabaseError {
  return new DatabaseError("MariaDB: the connection has been given back to the pool or the database was closed.");
}

/** The sequence of an entity does not exist: Tenon never creates it (SPEC.md 2.8 rule 1). */
export function missingSequence(quotedName: string, cause: unknown): DatabaseError {
  return new DatabaseError(
    `MariaDB: the sequence ${quotedName} does not exist; create it (CREATE SEQUENCE ${quotedName}): Tenon never creates sequences.`,
    { cause },
  );
}

/** The connection string could not be read. */
export function notAUrl(error: unknown): DatabaseError {
  return new DatabaseError("MariaDB: the connection string is not a URL (mariadb://user:password@host:3306/database).", { cause: error });
}
