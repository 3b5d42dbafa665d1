import { DatabaseError } from "../errors.js";
import { EngineMessages } from "./engine-messages.js";

/** The errors that a server engine raises alike, in its own name (see `serverEngineErrors`). */
export interface ServerEngineErrors {
  /** A session asked a closed database for a connection. */
  databaseClosed(where: string): DatabaseError;
  /** A statement on a connection already given back (the session was disposed, or the database closed under it). */
  connectionGivenBack(): DatabaseError;
  /** The sequence of an entity does not exist: Tenon never creates it (the schema tool does: docs/schema.md). */
  missingSequence(quotedName: string, cause: unknown): DatabaseError;
  /** The connection string could not be read. */
  notAUrl(error: unknown): DatabaseError;
}

/** The errors of `ServerEngineErrors` for the engine `engine`, whose connection strings look like `example`. */
export function serverEngineErrors(engine: string, example: string): ServerEngineErrors {
  return {
    databaseClosed: (where) => new DatabaseError(EngineMessages.databaseClosed(engine, where)),
    connectionGivenBack: () => new DatabaseError(EngineMessages.connectionGivenBack(engine)),
    missingSequence: (quotedName, cause) => new DatabaseError(EngineMessages.missingSequence(engine, quotedName), { cause }),
    notAUrl: (error) => new DatabaseError(EngineMessages.notAUrl(engine, example), { cause: error }),
  };
}

/** The message of whatever a driver threw. */
export function reasonOf(error: unknown): string {
  return (error as Error | null)?.message ?? String(error);
}
