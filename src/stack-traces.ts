/**
 * Building an error without its stack trace. V8 captures one whenever an `Error` is built, some 7 us from the depth
 * of a request's pipeline: more than the rest of a refused request costs. Errors that only describe what a caller
 * sent (answered 4xx) are built with capture off; errors that mean a fault keep their trace.
 * @internal
 */

/**
 * Turns V8's capture of stack traces off (`Error.stackTraceLimit` 0) and answers the limit to put back, or
 * undefined (nothing changed) where the limit is not a writable number of `Error`'s own (frozen intrinsics).
 * @internal
 */
export function stackTracesOff(): number | undefined {
  const descriptor = Object.getOwnPropertyDescriptor(Error, "stackTraceLimit");
  if (descriptor?.writable !== true || typeof descriptor.value !== "number") return undefined;
  Error.stackTraceLimit = 0;
  return descriptor.value;
}

/** Puts back the limit `stackTracesOff` answered. @internal */
export function stackTracesBack(limit: number | undefined): void {
  if (limit !== undefined) Error.stackTraceLimit = limit;
}
