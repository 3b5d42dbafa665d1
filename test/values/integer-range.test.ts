import assert from "node:assert/strict";
import { it } from "node:test";
import { int32Range, isInt32 } from "../../src/values/integer-range.js";

it("an int32 is an integer from -2^31 to 2^31 - 1", () => {
  assert.equal(int32Range.max, 2 ** 31 - 1);
  assert.ok(isInt32(int32Range.min) && isInt32(int32Range.max) && isInt32(0));
  assert.ok(!isInt32(2 ** 31) && !isInt32(-(2 ** 31) - 1) && !isInt32(1.5) && !isInt32(Number.NaN));
});
