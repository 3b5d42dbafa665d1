import {
  type AggregateFunction,
  aggregateFunctions,
  declaredAggregatable,
  groupFitsType,
  isNumericKind,
  metricFitsType,
} from "../../mapping/aggregate-decorator.js";
import { type ColumnMapping, EntityMapping } from "../../mapping/entity-mapping.js";
import { isSerialized, jsonMemberName, jsonPropertyName } from "../../json/json-visibility.js";
import { PerKeyCache } from "../../per-key-cache.js";

/** What a client may do with one column in an aggregate body. */
export interface AggregateUse {
  /** The column. */
  readonly column: ColumnMapping;
  /** The name the column has in answers: its JSON name. */
  readonly wireName: string;
  /** Whether the body may group by it. */
  readonly group: boolean;
  /** The functions the body may apply to it. */
  readonly metrics: ReadonlySet<AggregateFunction>;
}

/** A group a body may name: a column of the entity, or (`through` set) of the entity a `Lazy` reference points to. */
export interface AggregateGroupColumn {
  /** The column grouped by. */
  readonly column: ColumnMapping;
  /** The reference, for a column of the referenced entity. */
  readonly through?: ColumnMapping;
  /** The group's name in answers: the column's JSON name, or `<reference>.<JSON name>`. */
  readonly wireName: string;
}

/** How an aggregate body names and may use the columns of one entity. */
export interface AggregateColumns {
  /** The use of a column of the entity a body name designates (JSON or database name, any case), if any. */
  find(name: string): AggregateUse | undefined;
  /** The group a body name designates (`name`, or `reference.name` for a column of a referenced entity), if it may be one. */
  group(name: string): AggregateGroupColumn | undefined;
  /** Every column of the entity that an aggregate may use, in declaration order (for the API's description). */
  readonly uses: readonly AggregateUse[];
  /** The wire names of every group a body may name, references' columns included (for the API's description). */
  readonly groupNames: readonly string[];
}

const cache = new PerKeyCache(build);

/**
 * The columns a client may name in an aggregate body of one entity (docs/crud.md "Aggregates"). A column JSON
 * never writes (`@JsonIgnore`, a tenant column) and a blob are never named. Without `@Aggregatable`, a filterable
 * column may be grouped by and counted, a numeric one (not the key or the version) summed and averaged, a numeric
 * or date one measured with min and max; a `@NotFilterable` one only as `@Aggregatable` says. A column of a
 * `Lazy` reference's entity may be a group (`company.name`) under that entity's own rules, when the entity has no
 * `@WhereClause` and a tenant column only if this entity has one too.
 */
export function aggregateColumnsOf(mapping: EntityMapping): AggregateColumns {
  return cache.of(mapping);
}

/** What a client may do with a column: its `@Aggregatable`, else the defaults of its type. */
function useOf(column: ColumnMapping): AggregateUse {
  const wireName = jsonPropertyName(column);
  if (!isSerialized(column) || !groupFitsType(column.type)) return { column, wireName, group: false, metrics: new Set() };
  const declared = declaredAggregatable(column);
  const defaults = column.filterable ? defaultMetrics(column) : [];
  const metrics = (declared?.metrics ?? defaults).filter((fn) => metricFitsType(fn, column.type));
  return { column, wireName, group: declared?.groupBy ?? column.filterable, metrics: new Set(metrics) };
}

function defaultMetrics(column: ColumnMapping): AggregateFunction[] {
  const numeric = isNumericKind(column.type);
  const measured = numeric && !column.isPrimaryKey && !column.isVersion;
  return aggregateFunctions.filter((fn) => {
    if (fn === "count" || fn === "countDistinct") return true;
    if (fn === "sum" || fn === "avg") return measured;
    return numeric || column.type.kind === "date";
  });
}

function build(mapping: EntityMapping): AggregateColumns {
  const byName = namesOf(mapping);
  const uses = mapping.columns.map(useOf).filter((use) => use.group || use.metrics.size > 0);
  const groupNames = uses.filter((use) => use.group).map((use) => use.wireName);
  const references = new Map<string, { through: ColumnMapping; target: Map<string, AggregateUse> }>();
  for (const column of mapping.columns) {
    const target = column.type.kind === "lazy" && isSerialized(column) ? column.type.target?.() : undefined;
    if (target === undefined) continue;
    const targetMapping = EntityMapping.of(target);
    if (targetMapping.whereClause !== undefined || targetMapping.isJoinEntity) continue;
    if (targetMapping.tenantColumn !== undefined && mapping.tenantColumn === undefined) continue;
    references.set(jsonMemberName(column).toLowerCase(), { through: column, target: namesOf(targetMapping, true) });
    for (const use of targetMapping.ownColumns.map(useOf)) if (use.group) groupNames.push(`${jsonMemberName(column)}.${use.wireName}`);
  }
  return {
    uses,
    groupNames,
    find: (name) => byName.get(name.toLowerCase()),
    group: (name) => {
      const own = byName.get(name.toLowerCase());
      if (own !== undefined) return own.group ? { column: own.column, wireName: own.wireName } : undefined;
      const dot = name.indexOf(".");
      if (dot <= 0) return undefined;
      const reference = references.get(name.slice(0, dot).toLowerCase());
      const use = reference?.target.get(name.slice(dot + 1).toLowerCase());
      if (reference === undefined || use === undefined || !use.group) return undefined;
      return { column: use.column, through: reference.through, wireName: `${jsonMemberName(reference.through)}.${use.wireName}` };
    },
  };
}

/** The uses of an entity's columns by lower-case name (own table only for a referenced entity): database names, then JSON names. */
function namesOf(mapping: EntityMapping, ownOnly = false): Map<string, AggregateUse> {
  const byName = new Map<string, AggregateUse>();
  const uses = (ownOnly ? mapping.ownColumns : mapping.columns).map(useOf).filter((use) => use.group || use.metrics.size > 0);
  // Later entries win, as in a filter: a joined table's column name, then the entity's own, then JSON names.
  for (const use of uses) byName.set(use.column.columnName.toLowerCase(), use);
  for (const use of uses.filter((each) => each.column.alias === undefined)) byName.set(use.column.columnName.toLowerCase(), use);
  for (const use of uses) byName.set(use.wireName.toLowerCase(), use);
  return byName;
}
