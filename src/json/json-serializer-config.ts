/**
 * How deep `JsonContext.toJson` follows references. Level 0 writes the
 * entity's own values and `<name>Id` for each `Lazy<T>`; each further level also writes the referenced
 * entity as `<name>` (and, with details, each `LazyList<T>` as an array of children) one step further.
 */
export class JsonSerializerConfig {
  /** How many levels of references are expanded; a negative number means no limit (with a cycle guard). */
  readonly maxLevel: number;
  /** Whether detail collections (`LazyList<T>`) are written. */
  readonly details: boolean;

  /** @param maxLevel levels of references to expand (negative: unlimited). @param details whether details are written. */
  constructor(maxLevel: number, details: boolean) {
    this.maxLevel = maxLevel;
    this.details = details;
  }

  /** Unlimited depth with a cycle guard, no details. */
  static readonly default = new JsonSerializerConfig(-1, false);
  /** One level of references, with details (the reader's Get and the writer's answers). */
  static readonly withDetails = new JsonSerializerConfig(1, true);
  /** One level of references, no details (the reader's Select and SelectAll). */
  static readonly withRelations = new JsonSerializerConfig(1, false);
  /** The entity's own values and `<name>Id` for references only (the reader's Find, the writer's CreateNew). */
  static readonly entityOnly = new JsonSerializerConfig(0, false);

  /** Whether references are expanded at `level` (0 for the entities passed to toJson). */
  expands(level: number): boolean {
    return this.maxLevel < 0 || level < this.maxLevel;
  }
}
