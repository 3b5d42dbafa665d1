import assert from "node:assert/strict";
import { it } from "node:test";
import {
  compareDecimalText,
  decimalTextOf,
  decimalTextOfUnits,
  normalizeDecimal,
  normalizeExactDecimal,
  scaledUnitsOf,
} from "../../src/values/decimal-text.js";

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

it("an exact decimal keeps the column's scale and refuses digits it would lose", () => {
  assert.equal(normalizeExactDecimal("12.5", 18, 2), "12.50");
  assert.equal(normalizeExactDecimal("-0.00", 18, 2), "0.00");
  assert.equal(normalizeExactDecimal("12.501", 18, 2), undefined);
  assert.equal(normalizeExactDecimal("1234567890123456.78", 18, 2), "1234567890123456.78");
  assert.equal(normalizeExactDecimal("12345678901234567.8", 18, 2), undefined);
  assert.equal(normalizeExactDecimal("1e3", 18, 2), undefined);
});

it("decimal texts compare exactly, and a number's text has no exponent", () => {
  assert.equal(compareDecimalText("10.0", "9.99"), 1);
  assert.equal(compareDecimalText("-0", "0.000"), 0);
  assert.equal(compareDecimalText("-2", "-10"), 1);
  assert.ok(Number.isNaN(compareDecimalText("1e3", "1")));
  assert.equal(decimalTextOf(1e21), "1000000000000000000000");
  assert.equal(decimalTextOf(1.5e-7), "0.00000015");
});

it("a decimal read in exponent notation is expanded from its text, however large (it overflowed the stack)", () => {
  assert.equal(normalizeDecimal("1e+21", 2), "1000000000000000000000.00");
  assert.equal(normalizeDecimal("1.2345678901234568e+25", 2), "12345678901234568000000000.00");
  assert.equal(normalizeDecimal("-2.5e-3", 2), "0.00");
  assert.equal(normalizeDecimal("-2.5e-2", 2), "-0.03");
  assert.equal(normalizeDecimal("12.5", 2), "12.50");
});

it("scaled units turn decimal text into an exact integer and back", () => {
  assert.equal(scaledUnitsOf("9999999999999999.99", 2), 999999999999999999n);
  assert.equal(scaledUnitsOf("-0.05", 2), -5n);
  assert.equal(scaledUnitsOf("12.5", 2), 1250n);
  assert.equal(scaledUnitsOf("12.501", 2), undefined);
  assert.equal(decimalTextOfUnits(999999999999999999n, 2), "9999999999999999.99");
  assert.equal(decimalTextOfUnits(-5n, 2), "-0.05");
  assert.equal(decimalTextOfUnits(7n, 0), "7");
});
