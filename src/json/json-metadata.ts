import type { EntityMapping } from "../mapping/entity-mapping.js";
import { PerKeyCache } from "../per-key-cache.js";
import { isDeserialized, isFilterable, isSerialized, jsonMemberName, jsonPropertyName } from "./json-visibility.js";
import type { JsonObject } from "./json-value.js";
import type { CallerPolicy } from "../policy/caller-policy.js";

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

/**
 * The metadata as one caller of a governed entity sees it (`metadataOf`'s answer, changed): a member the caller can
 * neither read nor write is left out, one it reads on no row is `readable: false`, one it cannot write
 * `writable: false`, and one it does not read on every row `filterable: false` (it may be named in no filter).
 */
export function metadataForCaller(mapping: EntityMapping, policy: CallerPolicy): JsonObject {
  const metadata = metadataOf(mapping);
  const byName = new Map(mapping.columns.map((column) => [jsonPropertyName(column), column]));
  const properties: JsonObject[] = [];
  for (const property of metadata.properties as JsonObject[]) {
    const column = byName.get(property.name as string);
    if (column === undefined) {
      properties.push(property);
      continue;
    }
    const unreadable = policy.hidden.has(column);
    const unwritable = policy.notWritable.has(column);
    if ((unreadable || property.readable === false) && (unwritable || property.writable === false)) continue;
    if (!policy.readsAlways(column)) property.filterable = false;
    if (unreadable) property.readable = false;
    if (unwritable) property.writable = false;
    properties.push(property);
  }
  metadata.properties = properties;
  return metadata;
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
