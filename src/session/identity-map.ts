/**
 * One object per row within a session: the same class and primary key give the same instance
 * (join entities bypass it, SPEC.md 2.9).
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
    if (entityClass === this.#firstClass) return this.#first?.get(id);
    return this.#others?.get(entityClass)?.get(id);
  }

  /** Remembers `entity` as the instance of its key. */
  set(entityClass: Function, id: number, entity: object): void {
    this.#byIdOf(entityClass).set(id, entity);
  }

  /** Forgets the instance of a key. */
  delete(entityClass: Function, id: number): void {
    if (entityClass === this.#firstClass) this.#first?.delete(id);
    else this.#others?.get(entityClass)?.delete(id);
  }

  /** Forgets everything (after a rollback, memory may no longer match the rows). */
  clear(): void {
    this.#firstClass = undefined;
    this.#first = undefined;
    this.#others = undefined;
  }

  #byIdOf(entityClass: Function): Map<number, object> {
    if (entityClass === this.#firstClass) return this.#first as Map<number, object>;
    if (this.#firstClass === undefined) {
      this.#firstClass = entityClass;
      return (this.#first = new Map());
    }
    this.#others ??= new Map();
    let byId = this.#others.get(entityClass);
    if (byId === undefined) this.#others.set(entityClass, (byId = new Map()));
    return byId;
  }
}
