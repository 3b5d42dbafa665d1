/**
 * One object per row within a session: the same class and primary key give the same instance
 * (join entities bypass it, SPEC.md 2.9).
 */
export class IdentityMap {
  readonly #entities = new Map<Function, Map<number, object>>();

  /** The instance of `entityClass` with this key, if the session has it. */
  get(entityClass: Function, id: number): object | undefined {
    return this.#entities.get(entityClass)?.get(id);
  }

  /** Remembers `entity` as the instance of its key. */
  set(entityClass: Function, id: number, entity: object): void {
    let byId = this.#entities.get(entityClass);
    if (byId === undefined) this.#entities.set(entityClass, (byId = new Map()));
    byId.set(id, entity);
  }

  /** Forgets the instance of a key. */
  delete(entityClass: Function, id: number): void {
    this.#entities.get(entityClass)?.delete(id);
  }

  /** Forgets everything (after a rollback, memory may no longer match the rows). */
  clear(): void {
    this.#entities.clear();
  }
}
