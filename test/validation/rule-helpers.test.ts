import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isValidEmailAddress, textLength } from "tenon";

describe("text length and e-mail grammar", () => {
  it("textLength counts grapheme clusters: flags, skin tones, ZWJ families, combining marks and CR LF are one each", () => {
    assert.equal(textLength(""), 0);
    assert.equal(textLength("abc"), 3);
    assert.equal(textLength("\u{1F1EE}\u{1F1F9}"), 1);
    assert.equal(textLength("\u{1F44D}\u{1F3FD}"), 1);
    assert.equal(textLength("\u{1F469}\u200D\u{1F4BB}"), 1);
    assert.equal(textLength("a\u0308\u0301"), 1);
    assert.equal(textLength("a\r\nb"), 3);
    assert.equal(textLength("日本語"), 3);
  });

  it("isValidEmailAddress follows the WHATWG HTML grammar, including its willful violations of RFC 5322", () => {
    assert.equal(isValidEmailAddress("a.b@c.d"), true);
    assert.equal(isValidEmailAddress("a..b@c.d"), true, "consecutive dots in the local part are accepted by WHATWG");
    assert.equal(isValidEmailAddress("root@localhost"), true);
    assert.equal(isValidEmailAddress(`x@${"a".repeat(63)}.com`), true);
    assert.equal(isValidEmailAddress(`x@${"a".repeat(64)}.com`), false, "a label has at most 63 characters");
    assert.equal(isValidEmailAddress('"quoted"@c.d'), false, "quoted local parts are refused");
    assert.equal(isValidEmailAddress("a@[127.0.0.1]"), false, "IP literals are refused");
    assert.equal(isValidEmailAddress("a@b_c.d"), false);
    assert.equal(isValidEmailAddress(" a@b.c"), false);
  });
});
