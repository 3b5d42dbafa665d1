/**
 * One object per row within a session: the same class and primary key give the same instance
 * (join entities bypass it: they are read-only).
 *
 * Most sessions serve one request and read one class, so the first class's instances sit in a map of their
 * own and the map of further classes is made only when a second class is read; a session that reads nothing
 * allocates no map at all.
 */
export class IdentityMap {
  #firstClass: Function | undefined;
  #first: Map<number, object> | undefined;
  #others: Map<Function, Map<number, object>> | undefined;

  /** The instance of `entityClass` with this key, if the session has it. */
  get(entityClass: Function, id: number): object | undefined {
    return this.#existing(entityClass)?.get(id);
  }

  /** Remembers `entity` as the instance of its key. */
  set(entityClass: Function, id: number, entity: object): void {
    this.#byIdOf(entityClass).set(id, entity);
  }

  /** Forgets the instance of a key. */
  delete(entityClass: Function, id: number): void {
    this.#existing(entityClass)?.delete(id);
  }

  /** Forgets everything (after a rollback, memory may no longer match the rows). */
  clear(): void {
    this.#firstClass = undefined;
    this.#first = undefined;
    this.#others = undefined;
  }

  /** The instances of `entityClass`, if the session has any map for it. */
  #existing(entityClass: Function): Map<number, object> | undefined {
    return entityClass === this.#firstClass ? this.#first : this.#others?.get(entityClass);
  }

  /** The instances of `entityClass`, the map made on first use (the first class's, or one among the others). */
  #byIdOf(entityClass: Function): Map<number, object> {
    const existing = this.#existing(entityClass);
    if (existing !== undefined) return existing;
    const byId = new Map<number, object>();
    if (this.#firstClass === undefined) {
      this.#firstClass = entityClass;
      this.#first = byId;
    } else {
      (this.#others ??= new Map()).set(entityClass, byId);
    }
    return byId;
  }
}
