import "../mapping/symbol-metadata.js";
import { annotateMember } from "../mapping/metadata-store.js";

/** The annotation keys of the JSON decorators (see metadata-store.ts). @internal */
export const JsonKey = {
  ignore: Symbol("tenon.JsonIgnore"),
  ignoreSerialize: Symbol("tenon.JsonIgnoreSerialize"),
  ignoreDeserialize: Symbol("tenon.JsonIgnoreDeserialize"),
} as const;

/** A decorator for any mapped field (a column, a `Lazy<T>` foreign key or a `LazyList<T>` detail). */
export type JsonFieldDecorator = <This, V>(value: undefined, context: ClassFieldDecoratorContext<This, V>) => void;

/**
 * Keeps the field out of JSON entirely (SPEC.md TJSonIgnore): never written, never read, absent from the
 * metadata, and refused by the HTTP filter and orderBy.
 */
export const JsonIgnore: JsonFieldDecorator = (_value, context) => annotateMember(context, JsonKey.ignore, true);

/**
 * The field is read from JSON and never written to it (SPEC.md TJSonIgnoreSerialize). The HTTP filter and
 * orderBy refuse it, since a client never sees its values; the metadata reports it with `readable: false`.
 */
export const JsonIgnoreSerialize: JsonFieldDecorator = (_value, context) => annotateMember(context, JsonKey.ignoreSerialize, true);

/**
 * The field is written to JSON and never read from it (SPEC.md TJSonIgnoreDeserialize); the metadata
 * reports it with `writable: false`.
 */
export const JsonIgnoreDeserialize: JsonFieldDecorator = (_value, context) => annotateMember(context, JsonKey.ignoreDeserialize, true);
