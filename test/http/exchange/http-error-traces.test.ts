// A 4xx HttpError is an answer, not a fault: it is built without a stack trace (V8 spends some 7 us capturing one),
// while a 5xx keeps its trace, `Error.stackTraceLimit` is left as it was, and where that limit cannot be written a
// 4xx keeps its trace too.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  HttpError,
  HttpForbiddenError,
  HttpMethodNotAllowedError,
  HttpNotFoundError,
  HttpServiceUnavailableError,
  HttpUnauthorizedError,
} from "../../../src/http/exchange/http-errors.js";
import { framesOf, withStackTraceLimit } from "../../support/stack-frames.js";

describe("stack traces of HttpError", () => {
  test("a 4xx has none: its stack is its first line, with its class's name", () => {
    for (const [error, first] of [
      [new HttpError(404, "Command /x not found."), "HttpError: Command /x not found."],
      [new HttpError(409, "Conflict."), "HttpError: Conflict."],
      [new HttpNotFoundError(7), "HttpNotFoundError: Entity 7 not found."],
      [new HttpMethodNotAllowedError("PUT", "/things", ["GET"]), undefined],
      [new HttpUnauthorizedError(), undefined],
      [new HttpForbiddenError("Access forbidden: /things."), "HttpForbiddenError: Access forbidden: /things."],
    ] as const) {
      assert.deepEqual(framesOf(error), [], `${error.name}: ${error.stack}`);
      assert.equal(error.stack?.split("\n")[0], first ?? `${error.name}: ${error.message}`);
      assert.ok(error instanceof Error && error instanceof HttpError);
    }
  });

  test("a 5xx keeps its trace, which names the function that built it", () => {
    function buildsOne(): HttpError {
      return new HttpError(500, "Broken.");
    }
    const frames = framesOf(buildsOne());
    assert.ok(frames.length > 0, "frames");
    assert.match(frames[0], /buildsOne/);
    assert.ok(framesOf(new HttpServiceUnavailableError("The store did not answer.")).length > 0, "a 503 too");
  });

  test("the limit is put back as it was, also after a 4xx built with a cause", () => {
    withStackTraceLimit(17, () => {
      const cause = new Error("inner");
      const error = new HttpError(412, "Precondition failed.", { cause });
      assert.equal(Error.stackTraceLimit, 17);
      assert.equal(error.cause, cause);
      assert.ok(framesOf(cause).length > 0, "the cause keeps its own trace");
      assert.ok(framesOf(new Error("after")).length > 0, "errors built afterwards have traces");
    });
  });

  test("where Error.stackTraceLimit cannot be written, a 4xx keeps its trace and nothing throws", () => {
    withStackTraceLimit("read-only", () => {
      const error = new HttpError(404, "Command /x not found.");
      assert.ok(framesOf(error).length > 0, "frames");
      assert.equal(Error.stackTraceLimit, 10);
    });
  });
});
