import { test } from "node:test";
import assert from "node:assert/strict";
import { renderError } from "../../../src/http/logging/render-error.js";
import { ConcurrentUpdateError, TenonError } from "../../../src/errors.js";

class CustomFailure extends Error {}

test("a thrown error is rendered as its class name and message", () => {
  assert.deepEqual(renderError(new RangeError("too far")), {
    className: "RangeError",
    message: "too far",
    nestedClassName: undefined,
    nestedMessage: undefined,
  });
  assert.equal(renderError(new CustomFailure("x")).className, "CustomFailure");
  assert.equal(renderError(new ConcurrentUpdateError("Company", 3)).className, "ConcurrentUpdateError");
});

test("an error raised while another was in flight renders the other one as nested", () => {
  const first = new TypeError("first failure");
  const rendered = renderError(new TenonError("while handling", { cause: first }));
  assert.equal(rendered.className, "TenonError");
  assert.equal(rendered.message, "while handling");
  assert.equal(rendered.nestedClassName, "TypeError");
  assert.equal(rendered.nestedMessage, "first failure");
});

test("an error thrown while disposing after another failure renders the disposal error with the other as nested", () => {
  let thrown: unknown;
  try {
    using resource = {
      [Symbol.dispose](): void {
        throw new RangeError("dispose failed");
      },
    };
    void resource;
    throw new TypeError("handler failed");
  } catch (error) {
    thrown = error;
  }
  const rendered = renderError(thrown);
  assert.deepEqual(
    [rendered.className, rendered.message, rendered.nestedClassName, rendered.nestedMessage],
    ["RangeError", "dispose failed", "TypeError", "handler failed"],
  );
});

test("a thrown value that is not an error is rendered by its type and text", () => {
  assert.deepEqual([renderError("oops").className, renderError("oops").message], ["string", "oops"]);
  assert.equal(renderError(null).className, "null");
  assert.equal(renderError({ message: "m" }).message, "m");
  const hostile = {
    toString(): string {
      throw new Error("no");
    },
  };
  assert.equal(renderError(Object.create(hostile) as unknown).message, "");
});
