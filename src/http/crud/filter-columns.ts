import type { ColumnMapping, EntityMapping } from "../../mapping/entity-mapping.js";
import { isFilterable, jsonPropertyName } from "../../json/json-visibility.js";
import { PerKeyCache } from "../../per-key-cache.js";
import type { FilterColumns } from "./http-filter-body.js";
import type { CallerPolicy } from "../../policy/caller-policy.js";

const cache = new PerKeyCache(build);

/**
 * The columns a client may name in a filter body of one entity: by JSON name or database column name,
 * compared without case (the JSON name wins). Columns that are not filterable (`isFilterable`: `@NotFilterable`, never
 * serialized, blobs) are absent, so they answer exactly like unknown names.
 */
export function filterColumnsOf(mapping: EntityMapping): FilterColumns {
  return cache.of(mapping);
}

function build(mapping: EntityMapping): FilterColumns {
  const byName = new Map<string, ColumnMapping>();
  const usable = mapping.columns.filter(isFilterable);
  // Later entries win: a joined table's column name, then the entity's own column of the same name, then JSON names.
  for (const column of usable) byName.set(column.columnName.toLowerCase(), column);
  for (const column of usable.filter((c) => c.alias === undefined)) byName.set(column.columnName.toLowerCase(), column);
  for (const column of usable) byName.set(jsonPropertyName(column).toLowerCase(), column);
  return { find: (name: string) => byName.get(name.toLowerCase()), primaryKey: mapping.primaryKey };
}

/**
 * The columns a caller may name in a filter body of a governed entity: those of `filterColumnsOf` that the caller
 * reads on every row. A member its policy hides (on some rows or on all) answers exactly like an unknown name, so
 * that no filter or order can probe its values.
 */
export function filterColumnsFor(mapping: EntityMapping, policy: CallerPolicy | undefined): FilterColumns {
  const columns = filterColumnsOf(mapping);
  if (policy === undefined || (policy.hidden.size === 0 && policy.conditional.length === 0)) return columns;
  return {
    find: (name: string) => {
      const column = columns.find(name);
      return column !== undefined && policy.readsAlways(column) ? column : undefined;
    },
    primaryKey: columns.primaryKey,
  };
}
