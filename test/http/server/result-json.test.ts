import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ResultJson } from "../../../src/http/server/result-json.js";

/** Results written one after the other by one writer, each compared with what `JSON.stringify` writes. */
const results: readonly unknown[] = [
  {},
  { status: "ok" },
  { status: "ok" },
  {},
  { status: "ko" },
  { status: "ok", count: 1 },
  { status: "ok", count: -0 },
  { a: 1, b: -0, c: Number.NaN, d: Number.POSITIVE_INFINITY, e: true, f: false, g: null },
  { a: 1, b: -0, c: Number.NaN, d: Number.POSITIVE_INFINITY, e: true, f: false, g: null },
  { text: 'a"b' },
  { text: "a\\b" },
  { text: "line\nbreak" },
  { text: "\ud800" },
  { text: "😀" },
  { text: "é" },
  { 'na"me': 1 },
  { 'na"me': 1 },
  { 2: "x", 1: "y", a: "z" },
  { missing: undefined, present: 1 },
  { method() {} },
  { nested: { a: 1 } },
  { date: new Date(0) },
  { big: 2 ** 70, small: 1e-7, huge: 1e21 },
  { long: "a".repeat(100) },
  { long: "a".repeat(100) },
  { a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8 },
  { a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8, i: 9 },
  { a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8 },
  { toJSON: () => 1 },
  Object.create({ inherited: 1 }) as unknown,
  Object.create(null) as unknown,
  new (class Point {
    x = 1;
  })(),
  [1, 2],
  new Date(0),
  "text",
  5,
  null,
  true,
];

describe("ResultJson", () => {
  test("WritesEveryResultAsJsonStringifyDoes", () => {
    const json = new ResultJson();
    for (const result of results) assert.equal(json.of(result), JSON.stringify(result));
  });

  test("AnswersARepeatedResultWithTheSameText", () => {
    const json = new ResultJson();
    const first = json.of({ status: "ok", count: 2 });
    assert.equal(json.of({ status: "ok", count: 2 }), first);
    assert.equal(json.of({ status: "ok", count: 3 }), '{"status":"ok","count":3}');
  });

  test("WritesAnswersThatDifferEveryTimeAndThenRepeatAsJsonStringifyDoes", () => {
    const json = new ResultJson();
    for (let id = 0; id < 1100; id++) {
      const entity = { id, name: `n${id}`, a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8 };
      assert.equal(json.of(entity), JSON.stringify(entity));
      assert.equal(json.of({ id }), JSON.stringify({ id }));
    }
    for (let i = 0; i < 1100; i++) assert.equal(json.of({ status: "ok" }), '{"status":"ok"}');
  });

  test("ReadsAGetterOnceAndAnswersWhatItAnswersNow", () => {
    const json = new ResultJson();
    let reads = 0;
    let value = "ok";
    const result = {
      get status(): string {
        reads++;
        return value;
      },
    };
    assert.equal(json.of(result), '{"status":"ok"}');
    assert.equal(json.of(result), '{"status":"ok"}');
    value = "ko";
    assert.equal(json.of(result), '{"status":"ko"}');
    assert.equal(reads, 3, "one read a result, as JSON.stringify makes");
  });

  test("SeesAToJsonAndEnumerableFieldsAddedToObjectPrototype", () => {
    const json = new ResultJson();
    const prototype = Object.prototype as Record<string, unknown>;
    json.of({ a: 1 });
    try {
      prototype.toJSON = () => "replaced";
      assert.equal(json.of({ a: 1 }), JSON.stringify({ a: 1 }));
    } finally {
      delete prototype.toJSON;
    }
    try {
      prototype.added = 1;
      assert.equal(json.of({ a: 1 }), '{"a":1}');
    } finally {
      delete prototype.added;
    }
  });
});
