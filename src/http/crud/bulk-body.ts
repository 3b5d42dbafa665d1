import { InvalidInputError } from "../../errors.js";
import { jsonPropertyName } from "../../json/json-visibility.js";
import type { EntityMapping } from "../../mapping/entity-mapping.js";
import { isInt32 } from "../../values/integer-range.js";
import { CrudMessages } from "./crud-messages.js";
import { isMergeObject } from "./merge-patch.js";

/** The three lists a bulk operation can carry, in the order they are applied. */
export type HttpBulkOperation = "insert" | "update" | "delete";

/** One delete of a bulk body: the id and the version it was read with (0 for an entity without a version column). */
export interface BulkDeleteItem {
  readonly id: number;
  readonly version: number;
}

/** A bulk body read and checked for shape: items are still JSON, read one by one by the writer. */
export interface BulkBody {
  readonly insert: readonly unknown[];
  readonly update: readonly unknown[];
  readonly delete: readonly BulkDeleteItem[];
}

const operations: readonly HttpBulkOperation[] = ["insert", "update", "delete"];

/**
 * Reads the shape of a bulk body `{"insert": [...], "update": [...], "delete": [{"id", "versionId"}]}` (the key and
 * version by their wire names): a JSON
 * object with only these members, each absent, null or an array, at most `maxItems` items in all (counted
 * before any item is read), and delete items with an int32 id and, for a versioned entity, the version.
 * Anything else is an `InvalidInputError` (400); a delete item's failure names its position.
 */
export function readBulkBody(json: unknown, mapping: EntityMapping, maxItems: number): BulkBody {
  if (!isMergeObject(json)) throw new InvalidInputError(CrudMessages.bulkNotObject);
  for (const name of Object.keys(json)) {
    if (!operations.includes(name as HttpBulkOperation)) throw new InvalidInputError(CrudMessages.unknownBulkProperty(name));
  }
  const lists = operations.map((name) => {
    const list = json[name];
    if (list === undefined || list === null) return [];
    if (!Array.isArray(list)) throw new InvalidInputError(CrudMessages.bulkListNotArray(name));
    return list as unknown[];
  });
  const count = lists[0].length + lists[1].length + lists[2].length;
  if (maxItems >= 0 && count > maxItems) throw new InvalidInputError(CrudMessages.bulkTooManyItems(count, maxItems));
  // Members are read by their wire names, as every other body is.
  const idProperty = jsonPropertyName(mapping.primaryKey);
  const versionProperty = mapping.versionColumn === undefined ? undefined : jsonPropertyName(mapping.versionColumn);
  const deletes = lists[2].map((item): BulkDeleteItem => {
    const id = isMergeObject(item) ? item[idProperty] : undefined;
    const version = isMergeObject(item) && versionProperty !== undefined ? item[versionProperty] : 0;
    if (typeof id !== "number" || !isInt32(id) || typeof version !== "number" || !isInt32(version))
      throw new InvalidInputError(CrudMessages.bulkDeleteItem(idProperty, versionProperty));
    return { id, version };
  });
  return { insert: lists[0], update: lists[1], delete: deletes };
}
