import type { EntityMapping } from "../mapping/entity-mapping.js";
import { PerKeyCache } from "../per-key-cache.js";
import { isDeserialized, isFilterable, isSerialized, jsonMemberName, jsonPropertyName } from "./json-visibility.js";
import type { JsonObject } from "./json-value.js";

const cache = new PerKeyCache(build);

/**
 * The metadata of an entity as JSON: `{entity, primaryKey, versionColumn?, properties}`.
 * Each property has `name` (its JSON name), `type` (`int32`, `int64`, `float`, `decimal`, `string`,
 * `boolean`, `date`, `blob`; `reference` for a `Lazy<T>` key and `details` for a `LazyList<T>`, both with
 * `entity`), `size` for a sized string, `precision` and `scale` for a decimal, and the flags `filterable`,
 * `readable`, `writable`, present only when false. Database table and column names are not published; a
 * member that JSON neither writes nor reads is left out. Built once per mapping; callers get a fresh copy.
 */
export function metadataOf(mapping: EntityMapping): JsonObject {
  return structuredClone(cache.of(mapping));
}

function build(mapping: EntityMapping): JsonObject {
  const properties: JsonObject[] = [];
  for (const column of mapping.columns) {
    const readable = isSerialized(column);
    const writable = isDeserialized(column);
    if (!readable && !writable) continue;
    const property: JsonObject = { name: jsonPropertyName(column) };
    const type = column.type;
    if (type.kind === "lazy") {
      property.type = "reference";
      property.entity = (type.target as () => { name: string })().name;
    } else {
      property.type = type.kind;
    }
    if (type.size !== undefined) property.size = type.size;
    if (type.kind === "decimal") {
      if (type.precision !== undefined) property.precision = type.precision;
      if (type.scale !== undefined) property.scale = type.scale;
    }
    if (!isFilterable(column)) property.filterable = false;
    if (!readable) property.readable = false;
    if (!writable) property.writable = false;
    properties.push(property);
  }
  for (const detail of mapping.details) {
    const readable = isSerialized(detail);
    const writable = isDeserialized(detail);
    if (!readable && !writable) continue;
    const property: JsonObject = { name: jsonMemberName(detail), type: "details", entity: detail.target().name, filterable: false };
    if (!readable) property.readable = false;
    if (!writable) property.writable = false;
    properties.push(property);
  }
  const metadata: JsonObject = { entity: mapping.name, primaryKey: jsonPropertyName(mapping.primaryKey) };
  if (mapping.versionColumn !== undefined) metadata.versionColumn = jsonPropertyName(mapping.versionColumn);
  metadata.properties = properties;
  return metadata;
}
