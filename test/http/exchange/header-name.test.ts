import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isHeaderName } from "../../../src/http/exchange/header-name.js";

describe("header names", () => {
  test("a name matches its lower-case form in any ASCII case", () => {
    assert.equal(isHeaderName("content-length", "content-length"), true);
    assert.equal(isHeaderName("Content-Length", "content-length"), true);
    assert.equal(isHeaderName("X-REQUEST-ID", "x-request-id"), true);
    assert.equal(isHeaderName("x-Request-Id", "x-request-id"), true);
  });

  test("a name matches another in any ASCII case, either of them in capitals", () => {
    assert.equal(isHeaderName("content-type", "Content-Type"), true);
    assert.equal(isHeaderName("CONTENT-TYPE", "Content-type"), true);
    assert.equal(isHeaderName("Content-Type", "Content-Typf"), false);
  });

  test("a name of another length or with another character does not match", () => {
    assert.equal(isHeaderName("content-lengths", "content-length"), false);
    assert.equal(isHeaderName("content_length", "content-length"), false);
    assert.equal(isHeaderName("x-request-ie", "x-request-id"), false);
    assert.equal(isHeaderName("", "host"), false);
  });

  test("only ASCII capitals fold: characters that lower-case to nothing ASCII never match", () => {
    // "\r" + 32 is "-", "@" + 32 is "`", "[" + 32 is "{": none is a capital, so none folds.
    assert.equal(isHeaderName("x\rrequest\rid", "x-request-id"), false);
    assert.equal(isHeaderName("@", "`"), false);
    assert.equal(isHeaderName("[", "{"), false);
    // The Kelvin sign lower-cases to "k" with toLowerCase(); a header name is ASCII, so it is not folded here.
    assert.equal(isHeaderName("\u212Aeep-alive", "keep-alive"), false);
  });
});
