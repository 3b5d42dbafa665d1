/**
 * A first-come, first-served lock. The embedded engine has one connection for every session, so a
 * transaction that awaits (an event, a lazy load) holds this lock until it ends and no other session's
 * statement can run inside it.
 */
export class Mutex {
  #locked = false;
  readonly #waiters: (() => void)[] = [];

  /** Whether someone holds the lock. */
  get isLocked(): boolean {
    return this.#locked;
  }

  /** Waits for the lock and takes it. */
  lock(): Promise<void> {
    if (!this.#locked) {
      this.#locked = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Waits until nobody holds the lock, without taking it. */
  async idle(): Promise<void> {
    while (this.#locked) {
      await this.lock();
      this.unlock();
    }
  }

  /** Hands the lock to the next waiter, or frees it. */
  unlock(): void {
    const next = this.#waiters.shift();
    if (next === undefined) this.#locked = false;
    else next();
  }
}
