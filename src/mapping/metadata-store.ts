import "./symbol-metadata.js";
import type { EntityClass } from "./column-type.js";
import { MappingMessages } from "./mapping-messages.js";

/**
 * The one place where decorators record what they declare and where every layer reads it back.
 * Decorators of every layer (mapping, validation, JSON, events) call `annotateMember` / `annotateClass`
 * with a key symbol of their own; `EntityMapping` reads the records (entity-declarations.ts) when a class is
 * first mapped.
 */

/** What the decorators recorded about one class member. */
export interface RawMember {
  /** The member name as the decorator context gives it: `#name` for a `#private` member. */
  readonly name: string;
  /** Whether the member is a `#private` one. */
  readonly isPrivate: boolean;
  /** Whether the member is static. */
  readonly isStatic: boolean;
  /** The kind of member. */
  readonly kind: "field" | "method" | "getter" | "setter" | "accessor";
  /** Reads the member of an instance (for a method: the function). */
  readonly get: (instance: object) => unknown;
  /** Writes the member of an instance (fields and accessors only). */
  readonly set: ((instance: object, value: unknown) => void) | undefined;
  /** The records, by decorator key, in the order the decorators ran. */
  readonly annotations: Map<symbol, unknown[]>;
}

/** What the decorators recorded about one class. */
export interface RawEntity {
  /** The decorated members, in declaration order. */
  readonly members: Map<string, RawMember>;
  /** The class-level records, by decorator key. */
  readonly annotations: Map<symbol, unknown[]>;
}

const store = Symbol("tenon.mapping.store");

type MetadataHolder = Record<symbol, unknown>;

function ownRawEntity(metadata: DecoratorMetadataObject): RawEntity {
  const holder = metadata as MetadataHolder;
  if (Object.hasOwn(holder, store)) return holder[store] as RawEntity;
  const raw: RawEntity = { members: new Map(), annotations: new Map() };
  Object.defineProperty(holder, store, { value: raw, enumerable: false });
  return raw;
}

function push(map: Map<symbol, unknown[]>, key: symbol, value: unknown): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** Any decorator context of a class member that Tenon annotates. */
export type MemberDecoratorContext =
  | ClassFieldDecoratorContext
  | ClassMethodDecoratorContext
  | ClassGetterDecoratorContext
  | ClassSetterDecoratorContext
  | ClassAccessorDecoratorContext;

/** Records `value` under `key` for the member that `context` decorates. */
export function annotateMember(context: MemberDecoratorContext, key: symbol, value: unknown): void {
  if (typeof context.name !== "string") throw new TypeError(MappingMessages.memberNameNotString(String(context.name)));
  const raw = ownRawEntity(context.metadata);
  let member = raw.members.get(context.name);
  if (member === undefined) {
    const access = context.access as { get?: (instance: object) => unknown; set?: (instance: object, value: unknown) => void };
    member = {
      name: context.name,
      isPrivate: context.private,
      isStatic: context.static,
      kind: context.kind,
      get: access.get ?? (() => undefined),
      set: access.set,
      annotations: new Map(),
    };
    raw.members.set(context.name, member);
  }
  push(member.annotations, key, value);
}

/** Records `value` under `key` for the class that `context` decorates. */
export function annotateClass(context: ClassDecoratorContext, key: symbol, value: unknown): void {
  push(ownRawEntity(context.metadata).annotations, key, value);
}

/**
 * The records of a class, merged with those of its decorated base classes (base members first).
 * Answers undefined for a class no Tenon decorator touched.
 */
export function rawEntityOf(entityClass: EntityClass): RawEntity | undefined {
  const chain: RawEntity[] = [];
  for (let current: unknown = entityClass; typeof current === "function"; current = Object.getPrototypeOf(current)) {
    const metadata = (current as { [Symbol.metadata]?: DecoratorMetadataObject | null })[Symbol.metadata];
    if (metadata !== undefined && metadata !== null && Object.hasOwn(metadata, store)) {
      chain.unshift((metadata as MetadataHolder)[store] as RawEntity);
    }
  }
  if (chain.length === 0) return undefined;
  if (chain.length === 1) return chain[0];
  const merged: RawEntity = { members: new Map(), annotations: new Map() };
  for (const raw of chain) {
    for (const [name, member] of raw.members) merged.members.set(name, member);
    for (const [key, values] of raw.annotations) for (const value of values) push(merged.annotations, key, value);
  }
  return merged;
}
