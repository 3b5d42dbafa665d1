import type { ColumnMapping } from "../../mapping/entity-mapping.js";
import { jsonPropertyName } from "../../json/json-visibility.js";

/** Whether a JSON value is an object in the sense of RFC 7396 (not null, not an array). */
export function isMergeObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Applies a JSON Merge Patch (RFC 7396) to a JSON value: members of an object patch merge into the target
 * recursively, `null` removes a member, anything else replaces the target.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isMergeObject(patch)) return patch;
  const result: Record<string, unknown> = isMergeObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** The JSON member a column is read from: `<wire name>Id` for a `Lazy<T>` reference, else its wire name. */
export function jsonKeyOf(column: ColumnMapping): string {
  return jsonPropertyName(column);
}
