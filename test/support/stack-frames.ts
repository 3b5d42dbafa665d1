import assert from "node:assert/strict";

/** The frames (`    at ...` lines) of an error's stack. */
export function framesOf(error: Error): string[] {
  return (error.stack ?? "").split("\n").filter((line) => line.trimStart().startsWith("at "));
}

/** Runs `body` with `Error.stackTraceLimit` set to `limit` (or made read-only at 10), then puts the original back. */
export function withStackTraceLimit(limit: number | "read-only", body: () => void): void {
  const original = Object.getOwnPropertyDescriptor(Error, "stackTraceLimit");
  assert.ok(original !== undefined);
  if (limit === "read-only") Object.defineProperty(Error, "stackTraceLimit", { value: 10, writable: false, configurable: true });
  else Error.stackTraceLimit = limit;
  try {
    body();
  } finally {
    Object.defineProperty(Error, "stackTraceLimit", original);
  }
  assert.deepEqual(Object.getOwnPropertyDescriptor(Error, "stackTraceLimit"), original);
}
