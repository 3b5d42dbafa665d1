// STUB written by the lead: the session calls these around every write. The validation/events engineer
// owns this file and replaces the bodies (SPEC.md 6.1: class-level event classes and method-level events).
import type { EntityMapping } from "../mapping/entity-mapping.js";

/** The three kinds of write that have events. */
export type EntityEventKind = "insert" | "update" | "delete";

/** Runs the before-events of `kind` for `entity` (class-level event class first, then marked methods). */
export async function runBeforeEvents(kind: EntityEventKind, mapping: EntityMapping, entity: object, context: unknown): Promise<void> {
  void kind;
  void mapping;
  void entity;
  void context;
}

/** Runs the after-events of `kind` for `entity`. */
export async function runAfterEvents(kind: EntityEventKind, mapping: EntityMapping, entity: object, context: unknown): Promise<void> {
  void kind;
  void mapping;
  void entity;
  void context;
}
