import assert from "node:assert/strict";
import { it } from "node:test";
import { fromSqliteDecimal, toSqliteDecimal } from "../../../src/engines/sqlite/sqlite-decimal.js";
import { Type } from "../../../src/mapping/column-type.js";

const money = Type.decimal(18, 2);
const wide = Type.decimal(20, 2);

it("a decimal up to precision 18 is stored as the integer scaled by 10^scale, and read back exactly", () => {
  assert.equal(toSqliteDecimal("9999999999999999.99", money), 999999999999999999n);
  assert.equal(toSqliteDecimal("-0.05", money), -5n);
  assert.equal(toSqliteDecimal(12.5, money), 1250n);
  assert.equal(fromSqliteDecimal(999999999999999999n, money), "9999999999999999.99");
  assert.equal(fromSqliteDecimal(-5n, money), "-0.05");
  assert.equal(fromSqliteDecimal(1250, money), "12.50");
});

it("a decimal above precision 18 is fixed-width text that sorts as the number does", () => {
  const values = ["-999999999999999999.99", "-12.50", "-0.01", "0", "0.01", "12.50", "999999999999999999.99"];
  const stored = values.map((value) => toSqliteDecimal(value, wide) as string);
  assert.equal(stored[5], "P00000000000000001250");
  assert.deepEqual([...stored].sort(), stored);
  assert.deepEqual(
    stored.map((text) => fromSqliteDecimal(text, wide)),
    ["-999999999999999999.99", "-12.50", "-0.01", "0.00", "0.01", "12.50", "999999999999999999.99"],
  );
});

it("a value that does not fit is refused rather than rounded", () => {
  assert.throws(() => toSqliteDecimal("0.001", money), /does not fit a decimal of 18 digits with 2/);
  assert.throws(() => toSqliteDecimal("99999999999999999", money));
  assert.throws(() => toSqliteDecimal(Number.NaN, money));
});

it("what an earlier Tenon or a TEXT column left is read as its value", () => {
  assert.equal(fromSqliteDecimal("12.50", money), "12.50", "decimal text with its scale");
  assert.equal(fromSqliteDecimal("1250", money), "12.50", "a scaled integer a TEXT column turned into text");
  assert.equal(fromSqliteDecimal(12.5, money), "12.50", "a REAL of a NUMERIC column");
  assert.equal(fromSqliteDecimal("1e+21", money), "1000000000000000000000.00", "a REAL's exponent is expanded, not recursed on");
});
