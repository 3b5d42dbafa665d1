/**
 * The one home of a mapped member's wire name: the name JSON writes and reads, a filter body names, the
 * metadata and the OpenAPI schemas publish and validation failures report. It is the field name (without
 * `#`) unless `@JsonName` (src/json/json-decorators.ts) gives another. A `Lazy<T>` key is written as
 * `<wire name>Id` beside the `<wire name>` object. It lives in the mapping layer because validation, which
 * sits below JSON, reports it too.
 */

/** The annotation key under which `@JsonName` stores the wire name. @internal */
export const wireNameKey = Symbol("tenon.JsonName");

/** A mapped member as far as its wire name is concerned. */
export interface WireNamed {
  /** The field name, without `#`. */
  readonly property: string;
  /** The member's decorator annotations. */
  readonly annotations: ReadonlyMap<symbol, readonly unknown[]>;
}

/** The wire name of a column or detail: its `@JsonName`, else its field name. */
export function wireNameOf(member: WireNamed): string {
  const names = member.annotations.get(wireNameKey);
  return names === undefined ? member.property : (names[0] as string);
}
