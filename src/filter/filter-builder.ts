import { TenonError } from "../errors.js";
import type { EntityClass } from "../mapping/column-type.js";
import { EntityMapping, type ColumnMapping } from "../mapping/entity-mapping.js";
import { Lazy } from "../mapping/lazy.js";
import type { ComparisonOperator, Condition, OrderByItem } from "./condition.js";
import { Filter } from "./filter.js";
import { FilterMessages } from "./filter-messages.js";

/** A property name of `T` (public fields are suggested; any mapped property, `#private` ones included, is accepted). */
export type FilterProperty<T> = (keyof T & string) | (string & Record<never, never>);

/** A value a filter compares a column with; a `Lazy<T>` compares its key. */
export type FilterValue = string | number | bigint | boolean | Date | Uint8Array | Lazy<object> | null;

/**
 * The conditions of one group, combined with AND (the builder itself and `and(...)` groups), OR
 * (`or(...)` groups) or AND then negated (`not(...)` groups). Grouping is always explicit: a group is a
 * callback, so the SQL precedence of AND over OR never decides what a filter means.
 */
export class ConditionGroup<T extends object> {
  /** @internal */
  readonly mapping: EntityMapping<T>;
  /** @internal */
  readonly items: Condition[] = [];

  /** @internal */
  constructor(mapping: EntityMapping<T>) {
    this.mapping = mapping;
  }

  /** Starts a condition on a mapped property; an unknown property throws `TenonError`. */
  where(property: FilterProperty<T>): ColumnCondition<T, this> {
    const column = this.mapping.column(property);
    if (column === undefined) throw new TenonError(FilterMessages.unknownProperty(this.mapping.name, property));
    return new ColumnCondition(this, column);
  }

  /** Adds a group whose conditions are all required (useful inside `or`). */
  and(group: (all: ConditionGroup<T>) => unknown): this {
    return this.#group("and", group);
  }

  /** Adds a group of which at least one condition must hold; it is parenthesized in the SQL. */
  or(group: (any: ConditionGroup<T>) => unknown): this {
    return this.#group("or", group);
  }

  /** Adds a group whose conditions must not all hold: NOT (a AND b ...). */
  not(group: (all: ConditionGroup<T>) => unknown): this {
    const inner = new ConditionGroup(this.mapping);
    group(inner);
    if (inner.items.length === 0) throw new TenonError(FilterMessages.emptyGroup("not"));
    this.items.push({ kind: "not", condition: inner.items.length === 1 ? inner.items[0] : { kind: "and", conditions: inner.items } });
    return this;
  }

  /** @internal */
  push(condition: Condition): this {
    this.items.push(condition);
    return this;
  }

  #group(kind: "and" | "or", group: (inner: ConditionGroup<T>) => unknown): this {
    const inner = new ConditionGroup(this.mapping);
    group(inner);
    if (inner.items.length === 0) throw new TenonError(FilterMessages.emptyGroup(kind));
    this.items.push(inner.items.length === 1 ? inner.items[0] : { kind, conditions: inner.items });
    return this;
  }
}

/** The operators of one condition on one column; each answers the group it belongs to. */
export class ColumnCondition<T extends object, G extends ConditionGroup<T>> {
  readonly #group: G;
  readonly #column: ColumnMapping;

  /** @internal */
  constructor(group: G, column: ColumnMapping) {
    this.#group = group;
    this.#column = column;
  }

  /** column = value; `equal(null)` is `IS NULL`. */
  equal(value: FilterValue): G {
    return value === null ? this.isNull() : this.#compare("=", value);
  }
  /** column <> value; `notEqual(null)` is `IS NOT NULL`. */
  notEqual(value: FilterValue): G {
    return value === null ? this.isNotNull() : this.#compare("<>", value);
  }
  /** column > value. */
  greater(value: FilterValue): G {
    return this.#compare(">", value);
  }
  /** column >= value. */
  greaterOrEqual(value: FilterValue): G {
    return this.#compare(">=", value);
  }
  /** column < value. */
  less(value: FilterValue): G {
    return this.#compare("<", value);
  }
  /** column <= value. */
  lessOrEqual(value: FilterValue): G {
    return this.#compare("<=", value);
  }
  /** column LIKE pattern (`%` and `_` wildcards); text columns only. */
  like(pattern: string): G {
    return this.#like("LIKE", pattern);
  }
  /** column NOT LIKE pattern; text columns only. */
  notLike(pattern: string): G {
    return this.#like("NOT LIKE", pattern);
  }
  /** column IS NULL. */
  isNull(): G {
    return this.#group.push({ kind: "null", column: this.#column, negated: false });
  }
  /** column IS NOT NULL. */
  isNotNull(): G {
    return this.#group.push({ kind: "null", column: this.#column, negated: true });
  }
  /** column BETWEEN low AND high (both included). */
  between(low: FilterValue, high: FilterValue): G {
    return this.#group.push({ kind: "between", column: this.#column, low: this.#value(low), high: this.#value(high) });
  }
  /** column IN (values); an empty list matches no row. */
  in(values: readonly FilterValue[]): G {
    return this.#group.push({ kind: "in", column: this.#column, values: values.map((value) => this.#value(value)) });
  }

  #compare(operator: ComparisonOperator, value: FilterValue): G {
    return this.#group.push({ kind: "compare", column: this.#column, operator, value: this.#value(value) });
  }

  #like(operator: "LIKE" | "NOT LIKE", pattern: string): G {
    if (this.#column.type.kind !== "string") throw new TenonError(FilterMessages.likeNotText(this.#column.property));
    if (typeof pattern !== "string") throw new TenonError(FilterMessages.likePattern(this.#column.property));
    return this.#group.push({ kind: "compare", column: this.#column, operator, value: pattern });
  }

  #value(value: FilterValue): unknown {
    if (value instanceof Lazy) return value.id;
    if (value === null) throw new TenonError(FilterMessages.nullValue(this.#column.property));
    return value;
  }
}

/**
 * Builds a `Filter` over the mapped properties of `T`. Conditions added at the top
 * level are ANDed; `or(...)`, `and(...)` and `not(...)` take explicit groups. Values are bound as parameters
 * `p0, p1, ...` in order of appearance; nothing is SQL text.
 *
 * ```ts
 * const filter = new FilterBuilder(Company)
 *   .where("active").equal(true)
 *   .or((any) => any.where("creditLimit").greater(1000).where("creditLimit").isNull())
 *   .orderBy("name").limit(20)
 *   .build();
 * ```
 *
 * The builder does not police `@NotFilterable` or JSON visibility: it is the application's own code. Those
 * rules bind the HTTP filter body.
 */
export class FilterBuilder<T extends object> extends ConditionGroup<T> {
  readonly #orderBy: OrderByItem[] = [];
  #offset = 0;
  #limit: number | undefined;
  #includeDeleted = false;

  /** @param entityClass the entity whose properties the conditions name. */
  constructor(entityClass: EntityClass<T>) {
    super(EntityMapping.of(entityClass));
  }

  /** Adds an ORDER BY item (the primary key always comes last, so pages are stable). */
  orderBy(property: FilterProperty<T>, direction: "ASC" | "DESC" | "asc" | "desc" = "ASC"): this {
    const column = this.mapping.column(property);
    if (column === undefined) throw new TenonError(FilterMessages.unknownProperty(this.mapping.name, property));
    const normalized = direction.toUpperCase();
    if (normalized !== "ASC" && normalized !== "DESC") throw new TenonError(FilterMessages.direction(String(direction)));
    this.#orderBy.push({ column, direction: normalized });
    return this;
  }

  /** Skips `rows` rows (a non-negative integer). */
  offset(rows: number): this {
    if (!Number.isInteger(rows) || rows < 0) throw new TenonError(FilterMessages.page("offset", rows));
    this.#offset = rows;
    return this;
  }

  /** Reads at most `rows` rows (a non-negative integer). */
  limit(rows: number): this {
    if (!Number.isInteger(rows) || rows < 0) throw new TenonError(FilterMessages.page("limit", rows));
    this.#limit = rows;
    return this;
  }

  /** Reads soft-deleted rows too. */
  includeDeleted(include = true): this {
    this.#includeDeleted = include;
    return this;
  }

  /** The filter: a new `Filter` each call, to which the application may still `addWhere`. */
  build(): Filter {
    const filter = new Filter();
    for (const condition of this.items) filter.add(condition);
    filter.orderBy.push(...this.#orderBy);
    filter.offset = this.#offset;
    filter.limit = this.#limit;
    filter.includeDeleted = this.#includeDeleted;
    return filter;
  }
}
