import type { Connection } from "../engines/database.js";
import { TenonError } from "../errors.js";
import type { EntityMapping } from "../mapping/entity-mapping.js";
import type { Context } from "./context.js";
import { SessionMessages } from "./session-messages.js";

/** What a change record says happened to an entity. */
export type ChangeAction = "insert" | "update" | "delete" | "undelete";

/**
 * Writes the change records of the entities with `@ChangeFeed`; the change feed provides it (the session knows
 * only this seam, so that the JSON and the records stay above it). The session calls `capture` right after the
 * statements of a write ran in its transaction, keeps what it answers, and calls `flush` once with everything
 * kept just before COMMIT, then `committed` after it; a rolled-back transaction drops what was kept.
 */
export interface ChangeRecorder {
  /**
   * What to keep of a write of `entities` (all of `mapping`'s class): a delete's entities as written, whose
   * version plus `versionDelta` is the record's version (a delete's record carries the version after the one
   * deleted), the others as committed, read again through `session` where the written object may lack columns.
   */
  capture(
    session: Context,
    mapping: EntityMapping,
    entities: readonly object[],
    action: ChangeAction,
    versionDelta: number,
  ): Promise<unknown[]>;
  /** Writes the records of what was kept, in order, on the transaction's connection, just before COMMIT. */
  flush(session: Context, connection: Connection, kept: readonly unknown[]): Promise<void>;
  /** The transaction that wrote records committed: readers of the database may look for them. */
  committed(session: Context): void;
}

let recorder: ChangeRecorder | undefined;

/** Installs the change recorder (the change feed does, when it is loaded). @internal */
export function useChangeRecorder(installed: ChangeRecorder): void {
  recorder = installed;
}

/** The change recorder; an entity with `@ChangeFeed` written before the feed was loaded is a programming error. @internal */
export function changeRecorder(): ChangeRecorder {
  if (recorder === undefined) throw new TenonError(SessionMessages.noChangeRecorder);
  return recorder;
}
