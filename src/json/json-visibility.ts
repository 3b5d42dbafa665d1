import type { ColumnMapping, DetailMapping } from "../mapping/entity-mapping.js";
import { wireNameOf } from "../mapping/wire-name.js";
import { JsonKey } from "./json-decorators.js";

/**
 * The one place that decides which mapped members JSON writes, reads and lets a client filter on.
 * The serializer, the deserializer, the metadata and the HTTP filter all ask here.
 */

/** A mapped member: a column or a detail collection. */
export type JsonMember = ColumnMapping | DetailMapping;

/** Whether JSON output contains the member: not `@JsonIgnore`, not `@JsonIgnoreSerialize`, not a `@TenantColumn`. */
export function isSerialized(member: JsonMember): boolean {
  if ("isTenant" in member && member.isTenant) return false;
  return !member.annotations.has(JsonKey.ignore) && !member.annotations.has(JsonKey.ignoreSerialize);
}

/**
 * Whether JSON input sets the member: not `@JsonIgnore`, not `@JsonIgnoreDeserialize`, and not one of the six
 * change-tracking columns (never read from JSON: only the session writes them) nor a `@TenantColumn` (the session's).
 */
export function isDeserialized(member: JsonMember): boolean {
  if (member.annotations.has(JsonKey.ignore) || member.annotations.has(JsonKey.ignoreDeserialize)) return false;
  if ("isTenant" in member && member.isTenant) return false;
  return !("auditRole" in member) || member.auditRole === undefined;
}

/**
 * Whether a client may name the column in a filter `where` or `orderBy`: it is not `@NotFilterable`, JSON output
 * contains it (a column a client never sees cannot be filtered, or it would learn its values by probing), and it is
 * not a blob (bytes have no order or text a condition could compare).
 */
export function isFilterable(column: ColumnMapping): boolean {
  return column.filterable && column.type.kind !== "blob" && isSerialized(column);
}

/**
 * The JSON property name of a column: its wire name (`@JsonName`, else the field name), or `<wire name>Id`
 * for a `Lazy<T>` foreign key.
 */
export function jsonPropertyName(column: ColumnMapping): string {
  const name = wireNameOf(column);
  return column.type.kind === "lazy" ? `${name}Id` : name;
}

/** The wire name of a member (`@JsonName`, else the field name); for a `Lazy<T>` the name of the nested object. */
export function jsonMemberName(member: JsonMember): string {
  return wireNameOf(member);
}
