import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { textFaultOf } from "../../src/values/text.js";
import { seededRandom } from "../support/seeded-random.js";

/** The rule as a Unicode-mode expression states it: a NUL character or a lone surrogate (a pair is one code point). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what the expression looks for.
const unstorable = /[\x00\p{Cs}]/u;
const byDefinition = (text: string): string | undefined =>
  unstorable.test(text) ? (text.includes("\0") ? "nul" : "lone-surrogate") : undefined;

describe("text that no engine can store unchanged", () => {
  test("a NUL character and a lone surrogate are found, a surrogate pair is not, and NUL is named first", () => {
    assert.equal(textFaultOf(""), undefined);
    assert.equal(textFaultOf("Acme Holdings 42"), undefined);
    assert.equal(textFaultOf("café 😀"), undefined);
    assert.equal(textFaultOf("a\0b"), "nul");
    assert.equal(textFaultOf("\ud83d"), "lone-surrogate");
    assert.equal(textFaultOf("x\ude00y"), "lone-surrogate");
    assert.equal(textFaultOf("\ude00\ud83d"), "lone-surrogate", "a low surrogate before a high one is no pair");
    assert.equal(textFaultOf("\ud83d\0"), "nul");
    assert.equal(textFaultOf("\ud83d\ude00\ud83d"), "lone-surrogate", "the high surrogate at the end is alone");
  });

  test("it answers what the definition answers on random texts of letters, NULs and surrogates", () => {
    const next = seededRandom(30);
    const units = [0x41, 0x7a, 0x00, 0xe9, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xd83d, 0xde00, 0x20ac, 0xfffd];
    for (let i = 0; i < 50_000; i++) {
      const length = Math.floor(next() * 8);
      let text = "";
      for (let k = 0; k < length; k++) text += String.fromCharCode(units[Math.floor(next() * units.length)]);
      assert.equal(textFaultOf(text), byDefinition(text), JSON.stringify(text));
    }
  });
});
