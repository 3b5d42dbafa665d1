import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { HttpServerError } from "../../../src/http/exchange/http-errors.js";
import { HttpRouter } from "../../../src/http/routing/http-router.js";

function router(...routes: [string, string][]): HttpRouter<string> {
  const table = new HttpRouter<string>();
  for (const [method, pattern] of routes) table.add(method as "GET", pattern, `${method} ${pattern}`);
  return table;
}

describe("the router", () => {
  test("an exact address wins over a parametrized route and a catch-all", () => {
    const table = router(["GET", "/a/b"], ["GET", "/a/?"], ["GET", "/a/*"]);
    assert.equal(table.resolve("GET", "/a/b")?.target, "GET /a/b");
    assert.equal(table.resolve("GET", "/a/c")?.target, "GET /a/?");
    assert.deepEqual(table.resolve("GET", "/a/c")?.args, ["c"]);
    assert.equal(table.resolve("GET", "/a/c/d")?.target, "GET /a/*");
    assert.deepEqual(table.resolve("GET", "/a/c/d")?.args, ["c/d"]);
  });

  test("an exact address that does not answer the method steps aside for a parametrized route", () => {
    const table = router(["POST", "/a/select"], ["GET", "/a/?"]);
    assert.equal(table.resolve("GET", "/a/select")?.target, "GET /a/?");
    assert.equal(table.resolve("POST", "/a/select")?.target, "POST /a/select");
  });

  test("the search among parametrized routes goes on until one answers the method", () => {
    const table = router(["GET", "/a/b/?"], ["DELETE", "/a/?/?"]);
    assert.equal(table.resolve("DELETE", "/a/b/3")?.target, "DELETE /a/?/?");
    assert.deepEqual(table.resolve("DELETE", "/a/b/3")?.args, ["b", "3"]);
    assert.equal(table.resolve("GET", "/a/b/3")?.target, "GET /a/b/?");
  });

  test("a catch-all answers when nothing else carries the method, longest prefix first", () => {
    const table = router(["GET", "/*"], ["GET", "/a/*"], ["POST", "/a/b"]);
    assert.equal(table.resolve("GET", "/a/b")?.target, "GET /a/*");
    assert.equal(table.resolve("GET", "/x/y")?.target, "GET /*");
    assert.deepEqual(table.resolve("GET", "/a")?.args, [""]);
  });

  test("routes compare without case and ignore a trailing slash", () => {
    const table = router(["GET", "/Api/Things"], ["GET", "/api/Things/?"]);
    assert.equal(table.resolve("GET", "/API/THINGS/")?.target, "GET /Api/Things");
    assert.deepEqual(table.resolve("GET", "/api/things/AbC/")?.args, ["AbC"]);
  });

  test("a path past ASCII still compares without case, its values keeping theirs", () => {
    const table = router(["GET", "/straße/Äpfel"], ["GET", "/straße/Äpfel/?"]);
    assert.equal(table.resolve("GET", "/STRAßE/äpfel")?.target, "GET /straße/Äpfel");
    assert.equal(table.resolve("GET", "/straße/äpfel/")?.target, "GET /straße/Äpfel");
    assert.deepEqual(table.resolve("GET", "/Straße/ÄPFEL/Öl")?.args, ["Öl"]);
  });

  test("an address without placeholders answers the same frozen match every time, with no arguments", () => {
    const table = router(["GET", "/a/b"], ["POST", "/a/b"]);
    const first = table.resolve("GET", "/a/b");
    assert.equal(table.resolve("GET", "/A/B/"), first);
    assert.ok(Object.isFrozen(first));
    assert.deepEqual(first?.args, []);
    assert.equal(table.resolve("POST", "/a/b")?.target, "POST /a/b");
  });

  test("percent-decoding happens after the split, so %2F never makes a segment", () => {
    const table = router(["GET", "/a/b/c"], ["GET", "/a/?"]);
    assert.equal(table.resolve("GET", "/a/b%2Fc")?.target, "GET /a/?");
    assert.deepEqual(table.resolve("GET", "/a/b%2Fc")?.args, ["b/c"]);
    assert.equal(table.resolve("GET", "/a/b/c")?.target, "GET /a/b/c");
    assert.equal(table.resolve("GET", "/%61/b/c")?.target, "GET /a/b/c", "escaped letters still match a fixed segment");
  });

  test("a path without escapes resolves as the same path written with escapes (two lookups, one answer)", () => {
    const table = router(["GET", "/?"], ["GET", "/a/?"], ["GET", "/a/?/?"], ["PUT", "/a/b/?/?/?"], ["GET", "/Ä/İx/?"], ["GET", "/c/*"]);
    const escapeAll = (path: string): string =>
      path.replace(/[^/]/gu, (c) =>
        encodeURIComponent(c) === c ? `%${c.charCodeAt(0).toString(16).padStart(2, "0")}` : encodeURIComponent(c),
      );
    const cases: [string, string, string | undefined, string[] | undefined][] = [
      ["GET", "/x", "GET /?", ["x"]],
      ["GET", "/", undefined, undefined],
      ["GET", "/a/X1", "GET /a/?", ["X1"]],
      ["GET", "/A/x/Y/", "GET /a/?/?", ["x", "Y"]],
      ["GET", "/a/x/y/z", undefined, undefined],
      ["PUT", "/a/B/1/2/3", "PUT /a/b/?/?/?", ["1", "2", "3"]],
      ["PUT", "/a/b/1/2", undefined, undefined],
      ["GET", "/ä/İX/Wert", "GET /Ä/İx/?", ["Wert"]],
      ["GET", "/c/d/e", "GET /c/*", ["d/e"]],
    ];
    for (const [method, path, target, args] of cases) {
      for (const written of [path, escapeAll(path)]) {
        const match = table.resolve(method, written);
        assert.equal(match?.target, target, `${method} ${written}`);
        assert.deepEqual(match?.args, args, `${method} ${written}`);
      }
    }
  });

  test("a malformed escape matches nothing", () => {
    const table = router(["GET", "/a/?"]);
    assert.equal(table.resolve("GET", "/a/%zz"), undefined);
  });

  test("allowedMethods lists what every route matching the address answers", () => {
    const table = router(["GET", "/a"], ["POST", "/a"], ["DELETE", "/?"], ["PUT", "/*"]);
    assert.deepEqual(table.allowedMethods("/a"), ["GET", "HEAD", "POST", "PUT", "DELETE"]);
    assert.deepEqual(table.allowedMethods("/a/b/c"), ["PUT"]);
  });

  test("a fixed segment after a placeholder is refused", () => {
    assert.throws(() => router(["GET", "/a/?/detail"]), HttpServerError);
    assert.throws(() => router(["GET", "/a/*/b"]), HttpServerError);
    assert.throws(() => router(["GET", "/a/?/*"]), HttpServerError);
    assert.throws(() => router(["GET", "/a/b?"]), HttpServerError);
  });

  test("the same pattern twice for one method is refused, for two methods accepted", () => {
    assert.throws(() => router(["GET", "/a/?"], ["GET", "/A/?/"]), /declared twice/);
    assert.equal(router(["GET", "/a/?"], ["PUT", "/a/?"]).size, 2);
  });

  test("resolution time does not grow with the number of routes", () => {
    const small = new HttpRouter<number>();
    const large = new HttpRouter<number>();
    for (let i = 0; i < 10; i++) small.add("GET", `/r${i}/?`, i);
    for (let i = 0; i < 20000; i++) large.add("GET", `/r${i}/?`, i);
    const measure = (table: HttpRouter<number>, last: number): number => {
      const start = process.hrtime.bigint();
      for (let i = 0; i < 20000; i++) assert.equal(table.resolve("GET", `/r${last}/${i}`)?.target, last);
      return Number(process.hrtime.bigint() - start);
    };
    measure(small, 9);
    measure(large, 19999);
    const smallTime = Math.min(measure(small, 9), measure(small, 9));
    const largeTime = Math.min(measure(large, 19999), measure(large, 19999));
    // A linear scan would be ~2000 times slower; allow a wide margin for a busy machine.
    assert.ok(largeTime < smallTime * 20, `10 routes: ${smallTime} ns, 20000 routes: ${largeTime} ns`);
  });
});
