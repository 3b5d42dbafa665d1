import assert from "node:assert/strict";
import { test } from "node:test";

/**
 * Reports an engine whose server is not reachable. Under `CI=true` that is a failing test: CI must run
 * every engine. Elsewhere the suite is shown as skipped with the reason, and a loud message says that
 * this engine was NOT tested (a skip is never a pass).
 */
export function reportUnreachable(engine: string, reason: string, what = "engine suite"): void {
  const message = `The ${engine} ${what} was NOT run: ${reason}.`;
  if (process.env.CI === "true") {
    test(`the ${engine} ${what} runs (CI needs a reachable ${engine} server)`, () => assert.fail(message));
    return;
  }
  const bar = "!".repeat(Math.min(100, message.length + 8));
  console.error(`\n${bar}\n!!! ${message}\n!!! Start the server or set the test URL; under CI=true this fails.\n${bar}\n`);
  // The reporter prints the skip's reason beside it: the server could not be reached, so nothing was tested.
  test(`the ${engine} ${what}`, { skip: `NOT RUN, ${engine} is not reachable: ${reason} (under CI=true this fails)` }, () => {});
}
