import "./symbol-metadata.js";
import type { EntityClass } from "./column-type.js";
import type { EntityDecorator } from "./entity-decorators.js";
import { annotateClass, rawEntityOf } from "./metadata-store.js";
import { changeFeedKey } from "./mapping-keys.js";

/** What goes out of an entity's change feed. */
export interface ChangeFeedOptions {
  /**
   * The properties (field names, as the entity declares them) whose values a change record's `data` carries,
   * besides the primary key; default every property the entity serializes to JSON. A property that is no
   * column of the entity's own table is a mapping error.
   */
  readonly members?: readonly string[];
}

/**
 * Opts the entity into the change feed: every committed insert, update, delete (soft or hard), undelete and
 * bulk item writes one change record in the same transaction (a rolled-back write leaves none). The records
 * need the change tables (`SchemaOptions.changeFeed`); docs/changes.md says how they are read.
 */
export function ChangeFeed(options: ChangeFeedOptions = {}): EntityDecorator {
  const frozen: ChangeFeedOptions = Object.freeze({
    members: options.members === undefined ? undefined : Object.freeze([...options.members]),
  });
  return (_value, context) => annotateClass(context, changeFeedKey, frozen);
}

/**
 * Whether `entityClass` (or a class it extends) is decorated with `@ChangeFeed`, read from its decorators
 * without mapping it: the mapping, with every check of the feed's options, is built on the class's first use
 * (`EntityMapping.of`), so a server registering a controller does not build it before its first request.
 */
export function declaresChangeFeed(entityClass: EntityClass): boolean {
  return (rawEntityOf(entityClass)?.annotations.get(changeFeedKey)?.length ?? 0) > 0;
}
