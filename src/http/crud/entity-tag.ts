import type { EntityClass } from "../../mapping/column-type.js";
import { EntityMapping } from "../../mapping/entity-mapping.js";
import { Lazy, LazyList } from "../../mapping/lazy.js";
import { jsonPlanOf, type JsonPlan } from "../../json/json-plan.js";
import type { JsonSerializerConfig } from "../../json/json-serializer-config.js";
import { InvalidInputError } from "../../errors.js";
import { PerKeyCache } from "../../per-key-cache.js";
import { CrudMessages } from "./crud-messages.js";

/**
 * Entity tags of single entities (`"<id>-<version>"`, strong). An answer that embeds other entities
 * (a reference's object, a detail list) appends a short hash of their classes, ids and versions, so that a
 * renamed company changes its employee's tag: `"<id>-<version>-<hash>"`. An entity without a version
 * column has no tag. Nothing is hashed when nothing is embedded.
 */

/** What a conditional header holds: `*`, or the entity tags it lists. */
export type EntityTagList = "*" | readonly ParsedEntityTag[];

/** One entity tag of a conditional header. */
export interface ParsedEntityTag {
  /** Whether it was sent as `W/"..."`. */
  readonly weak: boolean;
  /** The text between the quotes. */
  readonly opaque: string;
}

/** The `<id>-<version>` part of one of this API's tags. */
export interface TagVersion {
  readonly id: number;
  readonly version: number;
}

const ourTag = /^(\d{1,10})-(\d{1,10})(?:-[0-9a-f]{8})?$/;

/** What the tag of one entity class needs, looked up once per class. */
interface TagFacts {
  readonly mapping: EntityMapping;
  readonly plan: JsonPlan;
}

const facts = new PerKeyCache((entityClass: Function): TagFacts => {
  const mapping = EntityMapping.of(entityClass as EntityClass);
  return { mapping, plan: jsonPlanOf(mapping) };
});

/** The tag of an entity as its answer under `config` shows it, or undefined when the entity has no version column. */
export function entityTagOf(entity: object, config: JsonSerializerConfig): string | undefined {
  const { mapping, plan } = facts.of(entity.constructor);
  const version = mapping.versionColumn;
  if (version === undefined) return undefined;
  const id = mapping.primaryKey.get(entity);
  // One text built at once: most answers embed nothing.
  if (!plan.hasExpansions || !config.expands(0)) return `"${id}-${version.get(entity)}"`;
  const embedded = embeddedText(entity, plan, config, 0, new Set([entity]));
  return embedded === "" ? `"${id}-${version.get(entity)}"` : `"${id}-${version.get(entity)}-${fnv1a(embedded)}"`;
}

/** The classes, ids and versions of the entities an answer embeds below `entity`, in the order written. */
function embeddedText(entity: object, plan: JsonPlan, config: JsonSerializerConfig, level: number, path: Set<object>): string {
  if (!config.expands(level) || !plan.hasExpansions) return "";
  let text = "";
  for (const field of plan.writes) {
    if (field.kind === "reference") {
      const lazy = field.get(entity);
      const target = lazy instanceof Lazy ? (lazy as Lazy<object>).value : undefined;
      if (target !== undefined && target !== null && !path.has(target)) text += described(target, config, level, path);
    } else if (field.kind === "detail" && config.details) {
      const list = field.get(entity);
      if (list instanceof LazyList && list.isLoaded)
        for (const item of (list as LazyList<object>).items) text += described(item, config, level, path);
    }
  }
  return text;
}

function described(target: object, config: JsonSerializerConfig, level: number, path: Set<object>): string {
  const { mapping, plan } = facts.of(target.constructor);
  const version = mapping.versionColumn === undefined ? "" : String(mapping.versionColumn.get(target));
  path.add(target);
  const below = embeddedText(target, plan, config, level + 1, path);
  path.delete(target);
  return `${mapping.name}:${mapping.primaryKey.get(target)}:${version};${below}`;
}

/** FNV-1a over the UTF-16 code units, as 8 hex digits: a short, fast, non-cryptographic hash (a tag is no secret). */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}

/**
 * Reads an `If-Match` or `If-None-Match` value (RFC 9110 13.1.1-2): `*`, or a comma-separated list of
 * `"opaque"` and `W/"opaque"`. Anything else is an `InvalidInputError` (400) naming the header.
 */
export function parseEntityTags(header: string, value: string): EntityTagList {
  const text = value.trim();
  if (text === "*") return "*";
  const tags: ParsedEntityTag[] = [];
  let i = 0;
  const fail = (): never => {
    throw new InvalidInputError(CrudMessages.badEntityTagList(header));
  };
  while (i < text.length) {
    while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === ",")) i++;
    if (i >= text.length) break;
    let weak = false;
    if (text.startsWith("W/", i)) {
      weak = true;
      i += 2;
    }
    if (text[i] !== '"') fail();
    const end = text.indexOf('"', i + 1);
    if (end < 0) fail();
    const opaque = text.slice(i + 1, end);
    for (let k = 0; k < opaque.length; k++) {
      const code = opaque.charCodeAt(k);
      // etagc = %x21 / %x23-7E / obs-text (%x80-FF)
      if (code < 0x21 || code === 0x7f || code > 0xff) fail();
    }
    tags.push({ weak, opaque });
    i = end + 1;
    while (i < text.length && (text[i] === " " || text[i] === "\t")) i++;
    if (i < text.length && text[i] !== ",") fail();
  }
  if (tags.length === 0) fail();
  return tags;
}

/**
 * The `<id>-<version>` of the one strong tag of this API an `If-Match` carries, or `*`. Another list (several
 * tags, a weak one, a tag this API never issued) is an `InvalidInputError` (400): a write needs exactly one
 * version to compare.
 */
export function ifMatchVersion(value: string): TagVersion | "*" {
  const tags = parseEntityTags("If-Match", value);
  if (tags === "*") return "*";
  if (tags.length !== 1 || tags[0].weak) throw new InvalidInputError(CrudMessages.ifMatchOneStrongTag);
  const match = ourTag.exec(tags[0].opaque);
  if (match === null) throw new InvalidInputError(CrudMessages.ifMatchNotOurs);
  const id = Number(match[1]);
  const version = Number(match[2]);
  if (id > 2147483647 || version > 2147483647) throw new InvalidInputError(CrudMessages.ifMatchNotOurs);
  return { id, version };
}

/**
 * Whether an `If-None-Match` value matches the current tag (weak comparison, RFC 9110 13.1.2): `*`, or
 * any listed tag whose text is the current one's. A value that is not an entity tag list answers 400.
 */
export function ifNoneMatchHolds(value: string, current: string): boolean {
  const tags = parseEntityTags("If-None-Match", value);
  if (tags === "*") return true;
  const opaque = current.slice(1, -1);
  for (const tag of tags) if (tag.opaque === opaque) return true;
  return false;
}
