import { MappingError } from "../errors.js";
import type { EntityClass } from "../mapping/column-type.js";
import { EntityMapping, planPerMapping, type ColumnMapping, type DetailMapping } from "../mapping/entity-mapping.js";
import type { RawMember } from "../mapping/metadata-store.js";
import { decoderFor, encoderFor, type ColumnDecoder, type ColumnEncoder } from "./column-json.js";
import { flatWriterOf, type FlatWriter } from "./flat-writer.js";
import { scalarReaderOf, type ScalarReader } from "./scalar-reader.js";
import { JsonKey } from "./json-decorators.js";
import { JsonMessages } from "./json-messages.js";
import { isDeserialized, isSerialized, jsonMemberName, jsonPropertyName } from "./json-visibility.js";

/** A scalar column written as `name`. */
export interface ScalarWrite {
  readonly kind: "scalar";
  readonly name: string;
  /** The member written; a policy's hidden members are found by it. */
  readonly member?: ColumnMapping;
  readonly get: (entity: object) => unknown;
  readonly encode: ColumnEncoder;
}

/** A `Lazy<T>` written as `<name>Id`, and as `<name>` where the level allows. */
export interface ReferenceWrite {
  readonly kind: "reference";
  readonly name: string;
  /** The member written; a policy's hidden members are found by it. */
  readonly member?: ColumnMapping;
  readonly idName: string;
  readonly get: (entity: object) => unknown;
  readonly target: () => EntityClass;
}

/** A `LazyList<T>` written as an array where the configuration has details. */
export interface DetailWrite {
  readonly kind: "detail";
  readonly name: string;
  /** The member written; a policy's hidden members are found by it. */
  readonly member?: DetailMapping;
  readonly get: (entity: object) => unknown;
  readonly target: () => EntityClass;
}

/** One member as JSON output writes it. */
export type FieldWrite = ScalarWrite | ReferenceWrite | DetailWrite;

/** One member as JSON input reads it: a column (a `Lazy` reads its key) or a detail list. */
export type FieldRead =
  | { readonly kind: "column"; readonly name: string; readonly column: ColumnMapping; readonly decode: ColumnDecoder }
  | { readonly kind: "detail"; readonly name: string; readonly detail: DetailMapping };

/**
 * What JSON writes and reads for one entity class, computed once per mapping so that serializing a page
 * of entities does no reflection: the fields in declaration order with their encoders and decoders.
 */
export class JsonPlan {
  /** The mapping. */
  readonly mapping: EntityMapping;
  /** The members written, in declaration order. */
  readonly writes: readonly FieldWrite[];
  /** The members read. */
  readonly reads: readonly FieldRead[];
  /** Whether any member expands (a reference or a detail): without one, every level writes the same. */
  readonly hasExpansions: boolean;
  /** Writes an entity without expanding anything: scalars and `<name>Id` (level 0 of every preset). */
  readonly flat: FlatWriter;
  /** Reads a JSON object's members into an entity when every member read is a scalar column (`scalarReaderOf`); else undefined. */
  readonly readScalars: ScalarReader | undefined;
  /** The plans of this one without some members, by their names (what a caller's policy hides). */
  readonly #without = new Map<string, JsonPlan>();

  /** @internal use `jsonPlanOf`. */
  constructor(
    mapping: EntityMapping,
    members: ReadonlyMap<string, RawMember>,
    derived?: { writes: readonly FieldWrite[]; reads: readonly FieldRead[] },
  ) {
    this.mapping = mapping;
    if (derived !== undefined) {
      this.writes = derived.writes;
      this.reads = derived.reads;
      this.hasExpansions = derived.writes.some((write) => write.kind !== "scalar");
      this.flat = flatWriterOf(derived.writes);
      this.readScalars = scalarReaderOf(derived.reads);
      return;
    }
    const mapped = new Set<string>();
    for (const column of mapping.columns) mapped.add(column.property);
    for (const detail of mapping.details) mapped.add(detail.property);
    for (const member of members.values()) {
      const property = member.name.startsWith("#") ? member.name.slice(1) : member.name;
      const marked =
        member.annotations.has(JsonKey.ignore) ||
        member.annotations.has(JsonKey.ignoreSerialize) ||
        member.annotations.has(JsonKey.ignoreDeserialize) ||
        member.annotations.has(JsonKey.name);
      if (marked && !mapped.has(property)) throw new MappingError(JsonMessages.notMapped(mapping.name, member.name));
      const wireNames = member.annotations.get(JsonKey.name);
      if (wireNames === undefined) continue;
      if (wireNames.length > 1) throw new MappingError(JsonMessages.jsonNameTwice(mapping.name, member.name));
      const wireName = wireNames[0];
      if (typeof wireName !== "string" || wireName.length === 0)
        throw new MappingError(JsonMessages.jsonNameEmpty(mapping.name, member.name));
    }

    const names = new Map<string, string>();
    const claim = (name: string, owner: string): void => {
      if (name === "__proto__") throw new MappingError(JsonMessages.reservedName(mapping.name, owner));
      const other = names.get(name);
      if (other !== undefined) throw new MappingError(JsonMessages.nameClash(mapping.name, owner, other, name));
      names.set(name, owner);
    };
    const writes: FieldWrite[] = [];
    const reads: FieldRead[] = [];
    const order = new Map<string, number>();
    let index = 0;
    for (const member of members.values()) order.set(member.name.startsWith("#") ? member.name.slice(1) : member.name, index++);
    const mappedMembers: (ColumnMapping | DetailMapping)[] = [...mapping.columns, ...mapping.details];
    mappedMembers.sort((a, b) => (order.get(a.property) ?? 0) - (order.get(b.property) ?? 0));
    for (const member of mappedMembers) {
      if ("childForeignKey" in member) {
        const name = jsonMemberName(member);
        claim(name, member.property);
        if (isSerialized(member)) writes.push({ kind: "detail", name, member, get: member.get, target: member.target });
        if (isDeserialized(member)) reads.push({ kind: "detail", name, detail: member });
        continue;
      }
      const column = member;
      const name = jsonPropertyName(column);
      if (column.type.kind === "lazy") {
        claim(name, column.property);
        claim(jsonMemberName(column), column.property);
        if (isSerialized(column))
          writes.push({
            kind: "reference",
            name: jsonMemberName(column),
            member: column,
            idName: name,
            get: column.get,
            target: column.type.target as () => EntityClass,
          });
      } else {
        claim(name, column.property);
        if (isSerialized(column)) writes.push({ kind: "scalar", name, member: column, get: column.get, encode: encoderFor(column.type) });
      }
      if (isDeserialized(column)) reads.push({ kind: "column", name, column, decode: decoderFor(column.type, name) });
    }
    this.writes = writes;
    this.reads = reads;
    this.hasExpansions = writes.some((write) => write.kind !== "scalar");
    this.flat = flatWriterOf(writes);
    this.readScalars = scalarReaderOf(reads);
  }

  /**
   * This plan without the members `hidden` (those a caller may not read): they are neither written nor read. Built
   * once per set of members, so a page of entities hidden alike shares one plan and its generated writer.
   */
  without(hidden: readonly (ColumnMapping | DetailMapping)[]): JsonPlan {
    if (hidden.length === 0) return this;
    const key =
      hidden.length === 1
        ? hidden[0].property
        : hidden
            .map((member) => member.property)
            .sort()
            .join(",");
    let plan = this.#without.get(key);
    if (plan === undefined) {
      const gone = new Set<ColumnMapping | DetailMapping>(hidden);
      const writes = this.writes.filter((write) => write.member === undefined || !gone.has(write.member));
      const reads = this.reads.filter((read) => !gone.has(read.kind === "column" ? read.column : read.detail));
      plan = new JsonPlan(this.mapping, new Map(), { writes, reads });
      this.#without.set(key, plan);
    }
    return plan;
  }
}

// JSON decorators on unmapped members and JSON name clashes are mapping errors, reported when the class is mapped.
const plans = planPerMapping((mapping, source) => new JsonPlan(mapping, source.members));

/** The JSON plan of a mapping, built once. */
export function jsonPlanOf(mapping: EntityMapping): JsonPlan {
  return plans.of(mapping);
}

/** The JSON plan of an entity's class. */
export function jsonPlanOfEntity(entity: object): JsonPlan {
  return jsonPlanOf(EntityMapping.of(entity.constructor as EntityClass));
}
