// CSV fields as RFC 4180 writes them: what needs quotes gets them, quotes are doubled, null and the empty text
// differ, and values are written as their JSON is.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { csvField, csvHeader, csvRecord } from "../../../src/http/crud/csv-text.js";

describe("CSV text", () => {
  test("quotes a field only when it holds a comma, a quote, CR or LF, and doubles its quotes", () => {
    assert.equal(csvField("plain text"), "plain text");
    assert.equal(csvField("a,b"), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField("two\nlines"), '"two\nlines"');
    assert.equal(csvField("cr\rhere"), '"cr\rhere"');
    assert.equal(csvField(" spaced "), " spaced ");
    assert.equal(csvField("ÄÖÜ 😀"), "ÄÖÜ 😀");
  });

  test("writes null (and a missing member) as the empty field and the empty text as a quoted empty field", () => {
    assert.equal(csvField(null), "");
    assert.equal(csvField(undefined), "");
    assert.equal(csvField(""), '""');
  });

  test("writes numbers, booleans and nested values as their JSON", () => {
    assert.equal(csvField(12.5), "12.5");
    assert.equal(csvField(-0.001), "-0.001");
    assert.equal(csvField(true), "true");
    assert.equal(csvField(10n), "10");
    assert.equal(csvField({ id: 1, name: "x,y" }), '"{""id"":1,""name"":""x,y""}"');
    assert.equal(csvField([1, 2]), '"[1,2]"');
  });

  test("writes a number with the digits String writes, NaN and the infinities included", () => {
    for (const value of [0, -0, 7, -42, 2147483647, 9007199254740991, 0.1, 1e21, 1.5e-7, -1e-7, 123456.789, Number.MIN_VALUE])
      assert.equal(csvField(value), String(value));
    assert.equal(csvField(Number.NaN), "NaN");
    assert.equal(csvField(Number.POSITIVE_INFINITY), "Infinity");
    assert.equal(csvField(Number.NEGATIVE_INFINITY), "-Infinity");
  });

  test("ends every record with CRLF and writes the columns in the order given", () => {
    assert.equal(csvHeader(["id", "name"]), "id,name\r\n");
    assert.equal(csvRecord(["name", "id", "missing"], { id: 3, name: "Acme, Inc." }), '"Acme, Inc.",3,\r\n');
  });
});
