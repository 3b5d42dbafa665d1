import type { ChangeAction } from "../session/change-capture.js";
import type { JsonObject } from "../json/json-value.js";

export type { ChangeAction } from "../session/change-capture.js";

/** One committed change of an entity with a change feed, as the change table keeps it. */
export interface StoredChange {
  /** Its place in commit order: increasing, never reused, without gaps between records kept. */
  readonly position: number;
  /** The entity's class name. */
  readonly entity: string;
  /** The entity's primary key. */
  readonly key: number;
  /** What happened. */
  readonly action: ChangeAction;
  /** The entity's version after the change (a delete: the one after the deleted version); null without a version column. */
  readonly version: number | null;
  /** The entity's JSON after the change (a delete: as it was deleted), as text. */
  readonly data: string | null;
  /** The name of the user who made the change ('' when nobody was known). */
  readonly user: string;
  /** The tenant of the entity's row; null for an entity without `@TenantColumn`. */
  readonly tenant: string | null;
  /** When the change committed, in milliseconds since the epoch. */
  readonly changedAt: number;
}

/**
 * A change as the stream and the webhooks send it: `data` is the entity as the reader serializes it after the
 * change, absent for a delete.
 */
export interface ChangeRecord {
  /** The entity's class name. */
  readonly entity: string;
  /** The entity's primary key. */
  readonly key: number;
  /** What happened. */
  readonly action: ChangeAction;
  /** The entity's version after the change; null without a version column. */
  readonly version: number | null;
  /** The entity after the change; absent for a delete. */
  readonly data?: JsonObject;
}

/**
 * The JSON text of the record a stored change sends: its `data` copied as stored, not parsed again, or the text
 * `data` given instead (the data as one reader may see it).
 */
export function changeRecordJson(change: StoredChange, data: string | null = change.data): string {
  const head = `{"entity":${JSON.stringify(change.entity)},"key":${change.key},"action":"${change.action}","version":${change.version === null ? "null" : change.version}`;
  if (change.action === "delete" || data === null) return `${head}}`;
  return `${head},"data":${data}}`;
}
