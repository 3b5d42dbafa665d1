import { test } from "node:test";
import assert from "node:assert/strict";
import { DiscardCounter, hostKey } from "../../../src/http/logging/discard-counter.js";

test("a host key is lower-cased, cut to 64 characters and stripped of other characters", () => {
  assert.equal(hostKey("API.Example.TEST:8080"), "api.example.test:8080");
  assert.equal(hostKey("a b/c?d#e_f-g"), "abcde_f-g");
  assert.equal(hostKey("x".repeat(100)), "x".repeat(64));
  // truncation comes before stripping: the 64 characters kept include the ones then stripped
  assert.equal(hostKey("!".repeat(10) + "y".repeat(100)), "y".repeat(54));
});

test("a request with no host, or with nothing usable in it, counts under <other>", () => {
  assert.equal(hostKey(""), "<other>");
  assert.equal(hostKey("ÄÖÜ"), "<other>");
  assert.equal(hostKey("<other>"), "other");
});

test("discards are counted per host and handed over once", () => {
  const counter = new DiscardCounter();
  assert.equal(counter.isEmpty, true);
  counter.count("A.test");
  counter.count("a.test");
  counter.count("");
  counter.count("b.test");
  const taken = counter.take().map((d) => [d.host, d.count]);
  assert.deepEqual(taken.sort(), [
    ["<other>", 1],
    ["a.test", 2],
    ["b.test", 1],
  ]);
  assert.equal(counter.isEmpty, true);
  assert.deepEqual(counter.take(), []);
});

test("at most 64 distinct hosts are counted and the rest accumulate under <other>", () => {
  const counter = new DiscardCounter();
  for (let i = 0; i < 100; i++) counter.count(`host${i}.test`);
  counter.count("host0.test");
  counter.count("");
  const taken = new Map(counter.take().map((d) => [d.host, d.count]));
  assert.equal(taken.size, 65);
  assert.equal(taken.get("host0.test"), 2);
  assert.equal(taken.get("host63.test"), 1);
  assert.equal(taken.has("host64.test"), false);
  assert.equal(taken.get("<other>"), 36 + 1);
});
