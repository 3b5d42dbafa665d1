// The ORM's errors that only describe the caller's request (answered 4xx, handled by type) are built without a stack
// trace, as a 4xx HttpError is: V8's capture costs some 7 us from the depth of a request, more than the rest of the
// refused request. Every other error keeps its trace, `Error.stackTraceLimit` is left as it was, and where that limit
// cannot be written every error keeps its trace.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  ConcurrentUpdateError,
  DatabaseError,
  EntityNotFoundError,
  InvalidInputError,
  MappingError,
  PolicyRefusedError,
  ReadOnlyEntityError,
  RelationConstraintError,
  TenantRequiredError,
  TenonError,
  ValidationError,
} from "../../src/errors.js";
import { framesOf, withStackTraceLimit } from "../support/stack-frames.js";

/** A user's own kind of validation failure. */
class CreditLimitError extends ValidationError {}

describe("stack traces of the ORM's errors", () => {
  test("an error that describes the caller's request has none: its stack is its first line", () => {
    const failure = { property: "email", column: "EMAIL", message: "Email is required." };
    for (const error of [
      new InvalidInputError("Property age must be a number.", { property: "age" }),
      new ValidationError([failure]),
      new CreditLimitError([failure]),
      new EntityNotFoundError("Company", 7),
      new ConcurrentUpdateError("Company", 7),
      new RelationConstraintError("Company", 7, "Invoices", 2),
      new PolicyRefusedError("Company", "update", "Company 7 may not be updated by this caller."),
    ]) {
      assert.deepEqual(framesOf(error), [], `${error.name}: ${error.stack}`);
      assert.equal(error.stack, `${error.name}: ${error.message}`);
      assert.equal(error.name, error.constructor.name);
      assert.ok(error instanceof TenonError && error instanceof Error);
    }
    const invalid = new InvalidInputError("Property age must be a number.", { property: "age", cause: new RangeError("inner") });
    assert.equal(invalid.property, "age");
    assert.ok(invalid.cause instanceof RangeError && framesOf(invalid.cause).length > 0, "the cause keeps its own trace");
    assert.deepEqual(new CreditLimitError([failure]).errors, [failure]);
  });

  test("an error that means a fault keeps its trace, which names the function that built it", () => {
    function buildsOne(): TenonError {
      return new MappingError("Company.name: no column.");
    }
    const frames = framesOf(buildsOne());
    assert.ok(frames.length > 0, "frames");
    assert.match(frames[0], /buildsOne/);
    for (const error of [
      new DatabaseError("broken"),
      new TenantRequiredError("Company"),
      new ReadOnlyEntityError("CompanyView"),
      new TenonError("x"),
    ]) {
      assert.ok(framesOf(error).length > 0, error.name);
    }
  });

  test("the limit is put back as it was", () => {
    withStackTraceLimit(17, () => {
      new ConcurrentUpdateError("Company", 7);
      assert.equal(Error.stackTraceLimit, 17);
      assert.ok(framesOf(new Error("after")).length > 0, "errors built afterwards have traces");
    });
  });

  test("where Error.stackTraceLimit cannot be written, every error keeps its trace and nothing throws", () => {
    withStackTraceLimit("read-only", () => {
      assert.ok(framesOf(new EntityNotFoundError("Company", 7)).length > 0, "frames");
      assert.equal(Error.stackTraceLimit, 10);
    });
  });
});
