// The streamed format a select answers: chosen from Accept by q, specificity and exact names, JSON by default.
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { describe, test } from "node:test";
import { HttpRequest } from "../../../src/http/exchange/http-request.js";
import { isNdjson, recordFormatOf } from "../../../src/http/crud/stream-format.js";

function requestWith(accept: string | undefined): HttpRequest {
  const rawHeaders = accept === undefined ? [] : ["Accept", accept];
  return new HttpRequest({ rawHeaders, url: "/x", method: "POST", socket: null } as unknown as IncomingMessage, "POST", undefined);
}

describe("the streamed format of a select", () => {
  test("is chosen by the Accept header, JSON winning ties and answering when none of the three is named", () => {
    const cases: [string | undefined, string | undefined][] = [
      [undefined, undefined],
      ["application/json", undefined],
      ["*/*", undefined],
      ["application/x-ndjson", "ndjson"],
      ["text/csv", "csv"],
      ["text/csv; charset=utf-8", "csv"],
      ["application/json, text/csv", undefined],
      ["text/csv, application/json", undefined],
      ["text/csv;q=0.9, application/json;q=0.8", "csv"],
      ["text/csv;q=0.5, */*;q=0.6", undefined],
      ["text/*, application/json;q=0.9", undefined],
      ["text/*, text/csv;q=0.8, application/json;q=0.5", "csv"],
      ["text/csv, */*", "csv"],
      ["application/x-ndjson;q=0, text/html", undefined],
      ["TEXT/CSV", "csv"],
      ["application/x-ndjson;q=0.4, text/csv;q=0.6", "csv"],
      ["application/x-ndjson; q=abc", undefined],
    ];
    for (const [accept, format] of cases) assert.equal(recordFormatOf(requestWith(accept)), format, String(accept));
  });

  test("an NDJSON body is told by its media type, parameters and case aside", () => {
    assert.equal(isNdjson("application/x-ndjson"), true);
    assert.equal(isNdjson("Application/X-NDJSON; charset=utf-8"), true);
    assert.equal(isNdjson("application/json"), false);
    assert.equal(isNdjson(""), false);
  });
});
