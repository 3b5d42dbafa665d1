import type { Database } from "../engines/database.js";

const listeners = new WeakMap<Database, Set<() => void>>();

/**
 * Tells the readers of `database` in this process that new change records committed (other processes learn it
 * through the engine's notifications, Redis or polling: see `ChangeHub`).
 */
export function announceChanges(database: Database): void {
  const set = listeners.get(database);
  if (set === undefined) return;
  for (const listener of set) listener();
}

/** Calls `listener` whenever a session of this process commits change records to `database`; answers the unsubscribe. */
export function onChangesAnnounced(database: Database, listener: () => void): () => void {
  let set = listeners.get(database);
  if (set === undefined) listeners.set(database, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}
