import { TenonError } from "../errors.js";
import { MappingMessages } from "./mapping-messages.js";

/** How a `Lazy<T>` reaches the session that materialized its owner. @internal */
export interface LazyLoader<T> {
  /** Loads the referenced entity, or null when no row has this key. */
  load(id: number): Promise<T | null>;
  /** Reads the primary key of an entity assigned with `set`. */
  idOf(entity: T): number;
}

/** Internal hook: binds a `Lazy` to the session that loaded its owner. @internal */
export const attachLazy = Symbol("tenon.attachLazy");
/** Internal hook: binds a `LazyList` to its loader. @internal */
export const attachLazyList = Symbol("tenon.attachLazyList");
/** Internal hook: forgets a `LazyList`'s items so the next access reloads them (a reload of the master). @internal */
export const resetLazyList = Symbol("tenon.resetLazyList");

/**
 * A foreign key that loads the entity it points to on first access.
 * In JSON a field `company` of this type is written as `companyId` (and `company` where the configuration allows).
 */
export class Lazy<T extends object> {
  #id: number | null;
  #value: T | null | undefined;
  #loader: LazyLoader<T> | undefined;
  #pending: Promise<T | null> | undefined;

  /** @param id the referenced primary key, or null for none. */
  constructor(id: number | null = null) {
    this.#id = id;
  }

  /** The referenced primary key, or null. Setting it forgets a loaded entity. */
  get id(): number | null {
    return this.#id;
  }
  set id(id: number | null) {
    if (id === this.#id) return;
    this.#id = id;
    this.#value = undefined;
    this.#pending = undefined;
  }

  /** Whether the referenced entity has been loaded (or assigned). */
  get isLoaded(): boolean {
    return this.#value !== undefined || this.#id === null;
  }

  /** The loaded entity: `undefined` when not loaded yet, `null` when there is none. */
  get value(): T | null | undefined {
    return this.#id === null ? null : this.#value;
  }

  /** Loads (once) and returns the referenced entity, or null when the key is null or no row has it. */
  get(): Promise<T | null> {
    if (this.#id === null) return Promise.resolve(null);
    if (this.#value !== undefined) return Promise.resolve(this.#value);
    if (this.#loader === undefined) {
      return Promise.reject(new TenonError(MappingMessages.lazyNotAttached(this.#id)));
    }
    const id = this.#id;
    this.#pending ??= this.#loader.load(id).then((value) => {
      if (this.#id === id) this.#value = value;
      return value;
    });
    return this.#pending;
  }

  /** Points the reference at `entity` (or at nothing). */
  set(entity: T | null): void {
    if (entity === null) {
      this.id = null;
      return;
    }
    if (this.#loader === undefined) throw new TenonError(MappingMessages.lazySetDetached);
    this.#id = this.#loader.idOf(entity);
    this.#value = entity;
    this.#pending = undefined;
  }

  /** @internal */
  [attachLazy](loader: LazyLoader<T>): void {
    this.#loader = loader;
  }
}

/**
 * A detail collection loaded on first access, matched by the detail column's
 * child foreign key. Never written by insert or update: the application saves details (see OnApplyDetails).
 */
export class LazyList<T extends object> implements AsyncIterable<T> {
  #items: T[] | undefined;
  #loader: (() => Promise<T[]>) | undefined;
  #pending: Promise<readonly T[]> | undefined;

  /** @param items the initial items; the list then counts as loaded. */
  constructor(items?: Iterable<T>) {
    this.#items = items === undefined ? undefined : [...items];
  }

  /** Whether the items are in memory. */
  get isLoaded(): boolean {
    return this.#items !== undefined;
  }

  /** The items in memory; throws when the list has not been loaded (call `load()` first). */
  get items(): readonly T[] {
    if (this.#items === undefined) throw new TenonError(MappingMessages.lazyListNotLoaded);
    return this.#items;
  }

  /** Loads the items (once) and returns them. An unattached, never-filled list is empty. */
  load(): Promise<readonly T[]> {
    if (this.#items !== undefined) return Promise.resolve(this.#items);
    if (this.#loader === undefined) {
      this.#items = [];
      return Promise.resolve(this.#items);
    }
    this.#pending ??= this.#loader().then((items) => {
      this.#items ??= items;
      this.#pending = undefined;
      return this.#items;
    });
    return this.#pending;
  }

  /** Replaces the items in memory (for example with the array of a JSON body). */
  replace(items: Iterable<T>): void {
    this.#items = [...items];
    this.#pending = undefined;
  }

  /** Adds an item in memory (the list must be loaded). */
  add(item: T): void {
    (this.items as T[]).push(item);
  }

  /** Removes an item in memory; answers whether it was there. */
  remove(item: T): boolean {
    const items = this.items as T[];
    const index = items.indexOf(item);
    if (index < 0) return false;
    items.splice(index, 1);
    return true;
  }

  /** Iterates the items, loading them first. */
  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    yield* await this.load();
  }

  /** @internal */
  [attachLazyList](loader: () => Promise<T[]>): void {
    this.#loader = loader;
  }

  /** @internal */
  [resetLazyList](): void {
    this.#items = undefined;
    this.#pending = undefined;
  }
}
