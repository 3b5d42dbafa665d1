import type { EntityClass } from "../mapping/column-type.js";
import { EntityMapping } from "../mapping/entity-mapping.js";
import { attachLazy, attachLazyList, Lazy, LazyList, resetLazyList } from "../mapping/lazy.js";
import { Filter } from "../filter/filter.js";
import type { Dialect } from "../sql/dialect.js";
import type { IdentityMap } from "./identity-map.js";
import { converterOf, rowFillerOf, settleAsRead, type RowFiller } from "./row-filler.js";
import type { EntityStatements } from "../sql/entity-statements.js";
import { PerKeyCache } from "../per-key-cache.js";

/** What the materializer asks of its session to load references and details lazily. */
export interface MaterializerSession {
  /** Loads one entity by key, or null. */
  tryGet<T extends object>(entityClass: EntityClass<T>, id: number): Promise<T | null>;
  /** Loads the entities a filter selects. */
  select<T extends object>(entityClass: EntityClass<T>, filter: Filter): Promise<T[]>;
}

/**
 * Turns rows into entities for one session: one instance per key through the identity map, values
 * converted by the engine's dialect, `Lazy` references and `LazyList` details bound to the session so that
 * they load on first access.
 */
export class EntityMaterializer {
  readonly #dialect: Dialect;
  readonly #shapes: PerKeyCache<EntityMapping, RowShape>;
  readonly #identityMap: IdentityMap;
  readonly #session: MaterializerSession;

  /** @param dialect converts driver values. @param identityMap the session's. @param session loads references and details. */
  constructor(dialect: Dialect, identityMap: IdentityMap, session: MaterializerSession) {
    this.#dialect = dialect;
    this.#shapes = rowShapes.of(dialect);
    this.#identityMap = identityMap;
    this.#session = session;
  }

  /** The entity of a row: the identity map's instance for its key, or a new one filled from the row (join entities: always new). */
  materialize<T extends object>(mapping: EntityMapping<T>, row: unknown[]): T {
    const shape = this.#shapes.of(mapping);
    if (!mapping.isJoinEntity) {
      const id = shape.readKey(row[shape.keyIndex]) as number;
      const known = this.#identityMap.get(mapping.entityClass, id);
      if (known !== undefined) return known as T;
      const entity = mapping.create();
      this.#fill(shape, mapping, entity, row);
      this.#identityMap.set(mapping.entityClass, id, entity);
      return entity;
    }
    const entity = mapping.create();
    this.#fill(shape, mapping, entity, row);
    return entity;
  }

  /**
   * A new entity filled from a row, never the identity map's nor kept in it: for reads too large to keep (a
   * cursor's rows), so that memory holds a batch of them at a time. Its references and details still load
   * through the session.
   */
  materializeDetached<T extends object>(mapping: EntityMapping<T>, row: unknown[]): T {
    const entity = mapping.create();
    this.#fill(this.#shapes.of(mapping), mapping, entity, row);
    return entity;
  }

  /** Writes a row into an entity (column values converted from the driver) and rebinds its references; loaded details are forgotten. */
  fill(mapping: EntityMapping, entity: object, row: unknown[]): void {
    this.#fill(this.#shapes.of(mapping), mapping, entity, row);
  }

  /**
   * Writes a row of `statements.rereadColumns` into an entity that an UPDATE by key of `statements` just wrote, so
   * that it holds what a full row would fill into it: the columns of `knownAfterUpdate` keep the values written,
   * those a row holds as NULL made what `fill` makes of NULL (and -0 the zero a row holds). For an entity
   * without `hasLazyMembers`.
   */
  fillReread(statements: EntityStatements, entity: object, row: unknown[]): void {
    const known = statements.knownAfterUpdate;
    for (let i = 0; i < known.length; i++) settleAsRead(known[i], entity);
    if (statements.rereadColumns.length > 0) rereadFillers.of(this.#dialect).of(statements)(entity, row);
  }

  #fill(shape: RowShape, mapping: EntityMapping, entity: object, row: unknown[]): void {
    shape.fill(entity, row);
    if (shape.binds) this.attach(mapping, entity, true);
  }

  /** Binds the entity's lazy references and detail lists to this session; `reload` forgets loaded details. */
  attach(mapping: EntityMapping, entity: object, reload = false): void {
    if (!mapping.hasLazyMembers) return;
    for (const column of mapping.columns) {
      if (column.type.kind !== "lazy") continue;
      let lazy = column.get(entity);
      if (!(lazy instanceof Lazy)) column.set(entity, (lazy = new Lazy()));
      const target = column.type.target as () => EntityClass;
      (lazy as Lazy<object>)[attachLazy]({
        load: (id) => this.#session.tryGet(target(), id),
        idOf: (referenced) => EntityMapping.of(target()).idOf(referenced),
      });
    }
    for (const detail of mapping.details) {
      let list = detail.get(entity);
      if (!(list instanceof LazyList)) detail.set(entity, (list = new LazyList()));
      else if (reload) list[resetLazyList]();
      const childMapping = (): EntityMapping => EntityMapping.of(detail.target());
      (list as LazyList<object>)[attachLazyList](async () => {
        const child = childMapping();
        const filter = new Filter();
        const foreignKey = child.columns.find(
          (c) => c.alias === undefined && c.columnName.toLowerCase() === detail.childForeignKey.toLowerCase(),
        );
        const local = detail.localColumn.get(entity);
        const localValue = local instanceof Lazy ? local.id : local;
        if (foreignKey !== undefined) filter.add({ kind: "compare", column: foreignKey, operator: "=", value: localValue });
        else filter.addWhere(`${this.#dialect.quoteIdentifier(detail.childForeignKey)} = :detailKey`, { detailKey: localValue });
        return this.#session.select(child.entityClass, filter);
      });
    }
  }
}

/** What the materializer needs of a mapping on every row, worked out once. */
interface RowShape {
  readonly fill: RowFiller;
  /** The index of the primary key in a row. */
  readonly keyIndex: number;
  /** The dialect's conversion of the primary key's value. */
  readonly readKey: (value: unknown) => unknown;
  /** Whether entities of the class have references or details to bind to the session. */
  readonly binds: boolean;
}

/** The row shapes of each dialect's mappings, built once (a filler converts by its dialect). */
const rowShapes = new PerKeyCache(
  (dialect: Dialect) =>
    new PerKeyCache(
      (mapping: EntityMapping): RowShape => ({
        fill: rowFillerOf(mapping.columns, dialect),
        keyIndex: mapping.columns.indexOf(mapping.primaryKey),
        readKey: converterOf(dialect, mapping.primaryKey),
        binds: mapping.hasLazyMembers,
      }),
    ),
);

/** The filler of each statements' `rereadColumns` on each dialect, built once. */
const rereadFillers = new PerKeyCache(
  (dialect: Dialect) => new PerKeyCache((statements: EntityStatements): RowFiller => rowFillerOf(statements.rereadColumns, dialect)),
);
