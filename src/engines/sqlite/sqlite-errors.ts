import { DatabaseError, TenonError, TransientDatabaseError, UniqueViolationError } from "../../errors.js";
import { reasonOf } from "../engine-errors.js";
import { EngineMessages } from "../engine-messages.js";

/** SQLite's extended result codes that decide an error's type, by number (what `node:sqlite` gives). */
const extendedCodes = new Map([
  [1555, "SQLITE_CONSTRAINT_PRIMARYKEY"],
  [2067, "SQLITE_CONSTRAINT_UNIQUE"],
]);
/** SQLite's primary result codes that decide an error's type, by number. */
const primaryCodes = new Map([
  [5, "SQLITE_BUSY"],
  [6, "SQLITE_LOCKED"],
]);

/**
 * The extended result code of a driver's error by name (`SQLITE_CONSTRAINT_PRIMARYKEY` ...): better-sqlite3
 * puts the name in `code`; `node:sqlite` puts `ERR_SQLITE_ERROR` there and the number in `errcode`.
 */
function codeOf(error: unknown): string | undefined {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  if (typeof errcode === "number") return extendedCodes.get(errcode) ?? primaryCodes.get(errcode & 0xff);
  return typeof code === "string" ? code : undefined;
}

/**
 * Wraps an error of either SQLite driver in the one error type the session reports for database failures: a duplicate
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
