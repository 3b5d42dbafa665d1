/**
 * A first-come, first-served lock. The embedded engine has one connection for every session, so a
 * transaction that awaits (an event, a lazy load) holds this lock until it ends and no other session's
 * statement can run inside it.
 */
export class Mutex {
  #locked = false;
  readonly #waiters: (() => void)[] = [];
  /** Who waits for a moment when nobody holds the lock; they never take it, so any number may wait. */
  #idleWaiters: (() => void)[] = [];

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

  /**
   * Resolves at the next moment nobody holds the lock, without taking it (the lock may be taken again
   * before the caller runs, so callers check again). Waiters that took and gave back the lock in turn would
   * hand it to each other forever; these only watch.
   */
  idle(): Promise<void> {
    if (!this.#locked) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Hands the lock to the next waiter, or frees it and wakes everyone waiting for it to be free. */
  unlock(): void {
    const next = this.#waiters.shift();
    if (next !== undefined) {
      next();
      return;
    }
    this.#locked = false;
    if (this.#idleWaiters.length > 0) {
      const idle = this.#idleWaiters;
      this.#idleWaiters = [];
      for (const resolve of idle) resolve();
    }
  }
}
