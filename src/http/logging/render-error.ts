/** What was thrown, as text that outlives the request. */
export interface RenderedError {
  /** The class of the thrown value ('' when nothing was thrown). */
  readonly className: string;
  /** Its message. */
  readonly message: string;
  /** The class of the error that was in flight when it was thrown, if any. */
  readonly nestedClassName: string | undefined;
  /** The message of that error. */
  readonly nestedMessage: string | undefined;
}

function className(value: unknown): string {
  if (value === null) return "null";
  if (typeof value !== "object" && typeof value !== "function") return typeof value;
  const ctor = (value as { constructor?: { name?: unknown } }).constructor;
  const name = typeof ctor?.name === "string" && ctor.name !== "" ? ctor.name : undefined;
  if (name !== undefined) return name;
  const ownName = (value as { name?: unknown }).name;
  return typeof ownName === "string" ? ownName : "Object";
}

function message(value: unknown): string {
  try {
    if (value instanceof Error) return value.message;
    if (typeof value === "object" && value !== null && typeof (value as { message?: unknown }).message === "string") {
      return (value as { message: string }).message;
    }
    return String(value);
  } catch {
    return "";
  }
}

/**
 * A `SuppressedError`: the native one (Node 24+) or the stand-in that TypeScript's `using` helpers create on
 * older runtimes (an `Error` named "SuppressedError" with `error` and `suppressed`).
 */
function isSuppressedError(value: unknown): value is Error & { error: unknown; suppressed: unknown } {
  if (typeof SuppressedError === "function" && value instanceof SuppressedError) return true;
  return value instanceof Error && value.name === "SuppressedError" && "error" in value && "suppressed" in value;
}

/**
 * Renders a thrown value to strings on the request path, before queuing. The error that was "in flight" when
 * another was raised is, in JavaScript, the `cause` of the thrown error (an error raised while handling another
 * one and chained to it), or the `suppressed` error of a `SuppressedError` (an error raised while disposing
 * resources during the unwinding of another), whose own `error` is then the one reported.
 */
export function renderError(thrown: unknown): RenderedError {
  let primary = thrown;
  let inFlight: unknown;
  if (isSuppressedError(thrown)) {
    primary = thrown.error;
    inFlight = thrown.suppressed;
  } else if (thrown instanceof Error && thrown.cause !== undefined) {
    inFlight = thrown.cause;
  }
  return {
    className: className(primary),
    message: message(primary),
    nestedClassName: inFlight === undefined ? undefined : className(inFlight),
    nestedMessage: inFlight === undefined ? undefined : message(inFlight),
  };
}
