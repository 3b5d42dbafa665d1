import "../mapping/symbol-metadata.js";
import { annotateMember } from "../mapping/metadata-store.js";
import { wireNameKey } from "../mapping/wire-name.js";

/** The annotation keys of the JSON decorators (see metadata-store.ts). @internal */
export const JsonKey = {
  ignore: Symbol("tenon.JsonIgnore"),
  ignoreSerialize: Symbol("tenon.JsonIgnoreSerialize"),
  ignoreDeserialize: Symbol("tenon.JsonIgnoreDeserialize"),
  name: wireNameKey,
} as const;

/** A decorator for any mapped field (a column, a `Lazy<T>` foreign key or a `LazyList<T>` detail). */
export type JsonFieldDecorator = <This, V>(value: undefined, context: ClassFieldDecoratorContext<This, V>) => void;

/**
 * Keeps the field out of JSON entirely: never written, never read, absent from the
 * metadata, and refused by the HTTP filter and orderBy.
 */
export const JsonIgnore: JsonFieldDecorator = (_value, context) => annotateMember(context, JsonKey.ignore, true);

/**
 * The field is read from JSON and never written to it. The HTTP filter and
 * orderBy refuse it, since a client never sees its values; the metadata reports it with `readable: false`.
 */
export const JsonIgnoreSerialize: JsonFieldDecorator = (_value, context) => annotateMember(context, JsonKey.ignoreSerialize, true);

/**
 * The field is written to JSON and never read from it; the metadata
 * reports it with `writable: false`.
 */
export const JsonIgnoreDeserialize: JsonFieldDecorator = (_value, context) => annotateMember(context, JsonKey.ignoreDeserialize, true);

/**
 * Gives the field another wire name: the name JSON writes and reads, a filter body names (beside the column
 * name), the metadata and the OpenAPI schemas publish, and validation failures report. A `Lazy<T>` field
 * `@JsonName("firm") company` is written as `firmId` and `firm`. Names compare as they are (no case
 * folding); a name used twice in one entity, an empty name, `__proto__` and a second `@JsonName` on one field
 * are `MappingError`s when the class is mapped.
 *
 * ```ts
 * @JsonName("credit_limit") @Column("CreditLimit", Type.decimal(18, 2).orNull) creditLimit: string | null = null;
 * ```
 */
export function JsonName(name: string): JsonFieldDecorator {
  return (_value, context) => annotateMember(context, wireNameKey, name);
}
