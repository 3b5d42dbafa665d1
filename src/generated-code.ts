/**
 * Builds a function from JavaScript text made by Tenon itself (never from input): `new Function` over
 * `parameters` and `body`, called with `values`, answering what the body returns. Undefined where the
 * platform refuses code generation (`--disallow-code-generation-from-strings`), so that the caller keeps its
 * generic path. The one home of Tenon's code generation, used for per-entity hot paths.
 * @internal
 */
export function generateFunction<F>(parameters: readonly string[], values: readonly unknown[], body: string): F | undefined {
  try {
    const factory = new Function(...parameters, `"use strict";\n${body}`) as (...args: unknown[]) => F;
    return factory(...values);
  } catch {
    return undefined;
  }
}
