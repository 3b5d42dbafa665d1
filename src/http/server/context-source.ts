/**
 * How the server gets each request's context: a class, built with `new` and no arguments, or a function that
 * answers a new context (`() => new AppContext(database)`), so that the application needs no module-level
 * database. They are told apart by the one thing JavaScript itself distinguishes: a function with its own
 * `prototype` (a `class`, or a `function` declaration or expression) is called with `new`; one without (an
 * arrow function, a method, a bound function) is called. A `function` that returns an object answers that
 * object under `new` as well, so both kinds of factory work; a bound class does not (wrap it in an arrow).
 */
export type HttpContextSource<C> = (new () => C) | (() => C);

/** The factory of a context source (see `HttpContextSource`). @internal */
export function contextFactory<C>(source: HttpContextSource<C>): () => C {
  if (Object.hasOwn(source, "prototype")) {
    const contextClass = source as new () => C;
    return () => new contextClass();
  }
  const factory = source as () => C;
  return () => factory();
}
