import assert from "node:assert/strict";
import { it } from "node:test";
import { normalizeDecimal } from "../../src/engines/value-conversion.js";

it("a decimal read from an engine gets exactly the column's scale, rounded half away from zero", () => {
  assert.equal(normalizeDecimal("12.5", 2), "12.50");
  assert.equal(normalizeDecimal("12", 2), "12.00");
  assert.equal(normalizeDecimal("0.125", 2), "0.13");
  assert.equal(normalizeDecimal("-0.125", 2), "-0.13");
  assert.equal(normalizeDecimal("-0.001", 2), "0.00");
  assert.equal(normalizeDecimal("19.999", 2), "20.00");
  assert.equal(normalizeDecimal("007.10", 1), "7.1");
  assert.equal(normalizeDecimal("1.5e3", 2), "1500.00");
  assert.equal(normalizeDecimal("123456789012345678.994", 2), "123456789012345678.99");
  assert.equal(normalizeDecimal("3.7", 0), "4");
});
