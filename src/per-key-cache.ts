/**
 * What is worked out once per key (an entity class, a mapping, a dialect) and kept as long as the key
 * lives (the key asked for last is held until another is): the plans and shapes that the hot paths read instead
 * of the decorators. A lookup allocates nothing.
 * @internal
 */
export class PerKeyCache<K extends object, V> {
  readonly #values = new WeakMap<K, V>();
  readonly #build: (key: K) => V;
  /** The key asked for last and its value, checked before the WeakMap (a request asks for one key many times). */
  #lastKey: K | undefined = undefined;
  #lastValue: V | undefined = undefined;

  /** @param build works out the value of a key the first time it is asked for. */
  constructor(build: (key: K) => V) {
    this.#build = build;
  }

  /** The value of `key`, built on first use. */
  of(key: K): V {
    if (key === this.#lastKey) return this.#lastValue as V;
    let value = this.#values.get(key);
    if (value === undefined) {
      value = this.#build(key);
      this.#values.set(key, value);
    }
    this.#lastKey = key;
    this.#lastValue = value;
    return value;
  }

  /** Keeps a value built ahead of its first use (when a class is mapped, say). */
  keep(key: K, value: V): void {
    this.#values.set(key, value);
    if (key === this.#lastKey) this.#lastValue = value;
  }
}
