import assert from "node:assert/strict";
import { it } from "node:test";
import { int32Range, int64Range } from "../../src/mapping/column-type.js";
import { isInt32 } from "../../src/values/integer-range.js";

it("an int32 is an integer from -2^31 to 2^31 - 1, and isInt32 agrees with the column type's range", () => {
  assert.deepEqual([int32Range.min, int32Range.max], [-(2 ** 31), 2 ** 31 - 1]);
  assert.deepEqual([int64Range.min, int64Range.max], [-(2n ** 63n), 2n ** 63n - 1n]);
  assert.ok(isInt32(int32Range.min) && isInt32(int32Range.max) && isInt32(0) && isInt32(-0));
  assert.ok(!isInt32(int32Range.max + 1) && !isInt32(int32Range.min - 1) && !isInt32(1.5) && !isInt32(Number.NaN));
  assert.ok(!isInt32(Number.POSITIVE_INFINITY) && !isInt32(2 ** 32));
});
