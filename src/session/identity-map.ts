/**
 * One object per row within a session: the same class and primary key give the same instance
 * (join entities bypass it: they are read-only).
 *
 * Most sessions serve one request and read one entity (a GET by id), so the session's first instance is held
 * on its own, without a map; the first class's map is made when a second instance comes, and the map of
 * further classes when a second class does. A session that reads nothing allocates no map at all.
 */
export class IdentityMap {
  /** The session's one instance while it has only one (the maps are then not made yet), or undefined. */
  #sole: object | undefined;
  #soleClass: Function | undefined;
  #soleId = 0;
  #firstClass: Function | undefined;
  #first: Map<number, object> | undefined;
  #others: Map<Function, Map<number, object>> | undefined;

  /** The instance of `entityClass` with this key, if the session has it. */
  get(entityClass: Function, id: number): object | undefined {
    if (this.#sole !== undefined) return entityClass === this.#soleClass && id === this.#soleId ? this.#sole : undefined;
    return this.#existing(entityClass)?.get(id);
  }

  /** Remembers `entity` as the instance of its key. */
  set(entityClass: Function, id: number, entity: object): void {
    if (this.#firstClass === undefined) {
      const sole = this.#sole;
      if (sole === undefined || (entityClass === this.#soleClass && id === this.#soleId)) {
        this.#sole = entity;
        this.#soleClass = entityClass;
        this.#soleId = id;
        return;
      }
      // A second instance: the first one moves into the maps, where every later one goes.
      const soleClass = this.#soleClass as Function;
      this.#sole = undefined;
      this.#soleClass = undefined;
      this.#byIdOf(soleClass).set(this.#soleId, sole);
    }
    this.#byIdOf(entityClass).set(id, entity);
  }

  /** Forgets the instance of a key. */
  delete(entityClass: Function, id: number): void {
    if (this.#sole !== undefined) {
      if (entityClass === this.#soleClass && id === this.#soleId) {
        this.#sole = undefined;
        this.#soleClass = undefined;
      }
      return;
    }
    this.#existing(entityClass)?.delete(id);
  }

  /** Forgets everything (after a rollback, memory may no longer match the rows). */
  clear(): void {
    this.#sole = undefined;
    this.#soleClass = undefined;
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
