import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { TransientDatabaseError } from "../../src/errors.js";
import { type RetryPolicy, runWithRetryNow } from "../../src/session/retry-policy.js";

/** Retries without a wait worth the name, so that the tests run fast. */
const quick: RetryPolicy = { retries: 2, baseDelayMs: 1, maxDelayMs: 1 };

const conflict = (): TransientDatabaseError => new TransientDatabaseError("deadlock", "conflict", true, false);

describe("runWithRetryNow", () => {
  it("answers the value of a first attempt that finishes at once, without a promise and without recovering", () => {
    const recovered: unknown[] = [];
    const answer = runWithRetryNow(
      quick,
      () => 42,
      (error) => recovered.push(error),
    );
    assert.equal(answer, 42);
    assert.deepEqual(recovered, []);
  });

  it("retries a first attempt that throws a retry-safe failure at once, after recovering, and answers the retry's value", async () => {
    const recovered: unknown[] = [];
    let attempts = 0;
    const answer = runWithRetryNow(
      quick,
      () => {
        attempts++;
        if (attempts === 1) throw conflict();
        return attempts;
      },
      (error) => recovered.push(error.kind),
    );
    assert.ok(answer instanceof Promise, "a retry comes after a wait");
    assert.equal(await answer, 2);
    assert.deepEqual(recovered, ["conflict"]);
  });

  it("retries an attempt whose promise rejects with a retry-safe failure, and gives up after the policy's retries", async () => {
    let attempts = 0;
    const failure = conflict();
    const answer = runWithRetryNow(
      quick,
      () => {
        attempts++;
        return Promise.reject(failure);
      },
      () => {},
    );
    await assert.rejects(Promise.resolve(answer), (error) => error === failure);
    assert.equal(attempts, 3, "the first attempt and two retries");
  });

  it("answers a failure that is not retry-safe as a rejection, never retried", async () => {
    let attempts = 0;
    const answer = runWithRetryNow(
      quick,
      () => {
        attempts++;
        throw new TransientDatabaseError("lost after COMMIT", "connection", false, true);
      },
      () => {},
    );
    assert.ok(answer instanceof Promise);
    await assert.rejects(answer, /lost after COMMIT/);
    assert.equal(attempts, 1);
  });
});
