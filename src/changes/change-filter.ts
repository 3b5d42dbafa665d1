import type { Condition } from "../filter/condition.js";
import { conditionHolds } from "../filter/condition-match.js";
import { decodeColumnJson } from "../json/column-json.js";
import { jsonPropertyName } from "../json/json-visibility.js";
import type { ColumnMapping } from "../mapping/entity-mapping.js";
import type { RowValues } from "../policy/caller-policy.js";
import type { StoredChange } from "./change-record.js";

const parsed = new WeakMap<StoredChange, Record<string, unknown> | null>();
const valued = new WeakMap<StoredChange, RowValues | null>();

/** The data of a change as JSON (parsed once, however many readers filter it); null for a change without data. */
export function changeData(change: StoredChange): Record<string, unknown> | null {
  let data = parsed.get(change);
  if (data === undefined) {
    data = change.data === null ? null : (JSON.parse(change.data) as Record<string, unknown>);
    parsed.set(change, data);
  }
  return data;
}

/**
 * Whether a change's data (a delete's: the entity as it was deleted) meets every condition, as a select's
 * `where` would have found the row: a comparison with NULL is never true, decimals compare by value, dates by
 * time; text compares exactly (by code point, with case), and in LIKE `%` and `_` are the only wildcards.
 * A change without data meets no condition.
 */
export function changeMeets(change: StoredChange, conditions: readonly Condition[]): boolean {
  if (conditions.length === 0) return true;
  const values = changeValues(change);
  if (values === undefined) return false;
  for (const condition of conditions) if (!conditionHolds(condition, values)) return false;
  return true;
}

/**
 * The values of a change's data by column, as conditions compare them (a value that does not decode reads as
 * NULL), each decoded once however many readers' conditions ask for it; undefined for a change without data.
 */
export function changeValues(change: StoredChange): RowValues | undefined {
  let values = valued.get(change);
  if (values === undefined) {
    const data = changeData(change);
    values = data === null ? null : memoizedValues(data);
    valued.set(change, values);
  }
  return values ?? undefined;
}

function memoizedValues(data: Record<string, unknown>): RowValues {
  const decoded = new Map<ColumnMapping, unknown>();
  return (column) => {
    let value = decoded.get(column);
    if (value === undefined && !decoded.has(column)) {
      value = columnValue(column, data);
      decoded.set(column, value);
    }
    return value;
  };
}

function columnValue(column: ColumnMapping, data: Record<string, unknown>): unknown {
  const json = data[jsonPropertyName(column)];
  if (json === undefined || json === null) return null;
  try {
    return decodeColumnJson(column, json);
  } catch {
    return null;
  }
}
