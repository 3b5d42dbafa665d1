import { DatabaseError, TenonError, TransientDatabaseError, UniqueViolationError } from "../../errors.js";
import { reasonOf } from "../engine-errors.js";
import { EngineMessages } from "../engine-messages.js";

/** The extended result code better-sqlite3 puts on its errors (`SQLITE_CONSTRAINT_PRIMARYKEY` ...). */
function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * Wraps a better-sqlite3 error in the one error type the session reports for database failures: a duplicate
 * key becomes a `UniqueViolationError` that says whether the primary key was hit (SQLite's extended codes
 * tell); a file that another process kept locked beyond the busy timeout (SQLITE_BUSY, SQLITE_LOCKED and their
 * extended codes) a `TransientDatabaseError` of kind "busy", safe to retry since the statement did not run;
 * every other failure a `DatabaseError`. An error that is already Tenon's (a `DatabaseError` of a statement
 * that failed to prepare, a `KeyRangeError` of the key table) is not wrapped.
 */
export function sqliteError(error: unknown): TenonError {
  if (error instanceof TenonError) return error;
  const message = EngineMessages.failed("SQLite", reasonOf(error));
  const code = codeOf(error);
  if (code === "SQLITE_CONSTRAINT_PRIMARYKEY") return new UniqueViolationError(message, true, { cause: error });
  if (code === "SQLITE_CONSTRAINT_UNIQUE") return new UniqueViolationError(message, false, { cause: error });
  if (code !== undefined && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")))
    return new TransientDatabaseError(message, "busy", true, false, { cause: error });
  return new DatabaseError(message, { cause: error });
}
