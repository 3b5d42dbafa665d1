import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  HttpLogAction,
  HttpLogDiscarded,
  HttpLogError,
  HttpLogRequest,
  HttpLogResponse,
} from "../../../src/http/logging/http-log-records.js";
import { LazyRecordCodec, recordFields } from "../../../src/http/logging/log-record-codec.js";

const request = {
  time: Date.UTC(2026, 0, 2, 3, 4, 5, 6),
  requestId: "r-1",
  host: 'odd "host"\u2028\ud800',
  uri: "/api/things",
  methodType: "POST",
  contentLength: 12,
  contentOmitted: false,
  content: '{"a":"b"}',
  paramsCount: 1,
  paramsOmitted: false,
  params: [["q", "x\\y"]] as const,
  headersCount: 2,
  headersOmitted: false,
  headers: [
    ["Host", "example.test"],
    ["Authorization", "<redacted>"],
  ] as const,
  remoteIp: "127.0.0.1",
  clientIp: "10.1.2.3",
};
const response = {
  time: 1,
  host: "h",
  uri: "/u",
  user: { username: "ann", areas: ["admin", "read"], tenant: "north" },
  statusCode: 201,
  contentType: "application/json",
  contentEncoding: "",
  contentLength: 2,
  contentOmitted: false,
  content: "{}",
};
const slow = {
  durationMs: 812.5,
  statements: [{ sql: "SELECT 1", durationMs: 800.25, failed: false }],
  statementsOmitted: 3,
};
const error = {
  time: 2,
  taskId: "0123456789abcdef0123456789abcdef",
  host: "h",
  uri: "/u",
  statusCode: 500,
  tenant: "north",
  exceptionClassName: "TypeError",
  exceptionMessage: "boom",
  nestedExceptionClassName: undefined,
  nestedExceptionMessage: undefined,
};

/** Records of every class in the states their JSON tells apart, with the ids left out when '' for each. */
const records: readonly (readonly [object, readonly string[]])[] = [
  [new HttpLogRequest(request), ["requestId"]],
  [
    new HttpLogRequest({ ...request, requestId: undefined, contentOmitted: true, paramsOmitted: true, headersOmitted: true }),
    ["requestId"],
  ],
  [new HttpLogResponse(response), ["requestId"]],
  [new HttpLogResponse({ ...response, requestId: "r-2", user: undefined, contentOmitted: true, slow }), ["requestId"]],
  [new HttpLogResponse({ ...response, slow: { ...slow, statementsOmitted: 0 } }), ["requestId"]],
  [new HttpLogError(error), ["requestId"]],
  [
    new HttpLogError({ ...error, tenant: undefined, nestedExceptionClassName: "RangeError", nestedExceptionMessage: "first" }),
    ["requestId"],
  ],
  [new HttpLogDiscarded("<other>", 7, 3), []],
  [new HttpLogAction("h", "m", "", 4), ["requestId", "taskId"]],
  [new HttpLogAction("h", "m", "t1", 4, "r-3"), ["requestId", "taskId"]],
];

describe("the log records are written from their declared fields", () => {
  it("the generated toJson and JSON line of every record equal the generic ones, and the line is JSON.stringify of the JSON", () => {
    for (const [record, ids] of records) {
      const compiled = new LazyRecordCodec(ids).of(record);
      const generic = new LazyRecordCodec(ids, false).of(record);
      const json = compiled.json(record);
      assert.deepEqual(json, generic.json(record));
      assert.deepEqual(Object.keys(json), Object.keys(generic.json(record)));
      assert.equal(compiled.line(record, "x"), generic.line(record, "x"));
      assert.equal(compiled.line(record, "x"), `${JSON.stringify({ log: "x", ...json })}\n`);
      assert.deepEqual(json, (record as { toJson(): object }).toJson());
    }
  });

  it("a request's JSON keeps the documented order, each omitted list replaced by its flag", () => {
    assert.deepEqual(Object.keys(new HttpLogRequest(request).toJson()), [
      "time",
      "requestId",
      "host",
      "uri",
      "methodType",
      "contentLength",
      "content",
      "paramsCount",
      "params",
      "headersCount",
      "headers",
      "remoteIp",
      "clientIp",
    ]);
    const omitted = new HttpLogRequest({
      ...request,
      requestId: undefined,
      contentOmitted: true,
      paramsOmitted: true,
      headersOmitted: true,
    });
    assert.deepEqual(Object.keys(omitted.toJson()), [
      "time",
      "host",
      "uri",
      "methodType",
      "contentLength",
      "contentOmitted",
      "paramsCount",
      "paramsOmitted",
      "headersCount",
      "headersOmitted",
      "remoteIp",
      "clientIp",
    ]);
    assert.equal(omitted.requestId, "");
    assert.equal(omitted.params, undefined);
    assert.deepEqual(new HttpLogRequest(request).toJson().params, [{ name: "q", value: "x\\y" }]);
    assert.equal(new HttpLogRequest(request).toJson().time, "2026-01-02T03:04:05.006Z");
  });

  it("a response's JSON keeps the documented order and ends with a slow request's fields", () => {
    const json = new HttpLogResponse({ ...response, requestId: "r", slow }).toJson();
    assert.deepEqual(Object.keys(json), [
      "time",
      "requestId",
      "host",
      "uri",
      "user",
      "statusCode",
      "contentType",
      "contentEncoding",
      "contentLength",
      "content",
      "durationMs",
      "statements",
      "statementsOmitted",
    ]);
    assert.deepEqual(json.user, response.user);
    assert.equal(json.durationMs, 812.5);
    assert.equal("statementsOmitted" in new HttpLogResponse({ ...response, slow: { ...slow, statementsOmitted: 0 } }).toJson(), false);
  });

  it("an error's JSON keeps the documented order, and its nested pair comes and goes together", () => {
    const nested = new HttpLogError({ ...error, nestedExceptionClassName: "RangeError", nestedExceptionMessage: undefined });
    assert.deepEqual(Object.keys(nested.toJson()), [
      "time",
      "taskId",
      "host",
      "uri",
      "statusCode",
      "tenant",
      "exceptionClassName",
      "exceptionMessage",
      "nestedExceptionClassName",
      "nestedExceptionMessage",
    ]);
    assert.equal(nested.toJson().nestedExceptionMessage, "");
    const lone = new HttpLogError({ ...error, nestedExceptionMessage: "no class" });
    assert.equal(lone.nestedExceptionMessage, undefined);
    assert.equal("nestedExceptionMessage" in lone.toJson(), false);
  });

  it("an action's JSON writes host, task id and message in that order, the ids only when set", () => {
    assert.deepEqual(Object.keys(new HttpLogAction("h", "m", "t", 0, "r").toJson()), ["time", "requestId", "host", "taskId", "message"]);
    assert.deepEqual(Object.keys(new HttpLogAction("h", "m").toJson()), ["time", "host", "message"]);
    assert.deepEqual(Object.keys(new HttpLogDiscarded("h", 1).toJson()), ["time", "host", "count"]);
  });

  it("a field's kind is told by its name: time, ids, flags and what they omit, slow, the rest plain", () => {
    assert.deepEqual(
      recordFields(["time", "requestId", "content", "contentOmitted", "lonelyOmitted", "slow", "host"], ["requestId"]).map(
        ({ key, kind, partner }) => `${key}:${kind}:${partner}`,
      ),
      [
        "time:time:",
        "requestId:id:",
        "content:omittable:contentOmitted",
        "contentOmitted:flag:content",
        "lonelyOmitted:plain:",
        "slow:slow:",
        "host:plain:",
      ],
    );
  });
});
