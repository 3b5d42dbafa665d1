import { test } from "node:test";
import assert from "node:assert/strict";
import {
  HttpLogAction,
  HttpLogDiscarded,
  HttpLogError,
  HttpLogRequest,
  HttpLogResponse,
} from "../../../src/http/logging/http-log-records.js";

const requestFields = {
  time: Date.UTC(2026, 0, 2, 3, 4, 5),
  host: "example.test",
  uri: "/api/things",
  methodType: "POST",
  contentLength: 12,
  contentOmitted: false,
  content: '{"a":"b"}',
  paramsCount: 1,
  paramsOmitted: false,
  params: [["q", "x"]] as const,
  headersCount: 1,
  headersOmitted: false,
  headers: [["Host", "example.test"]] as const,
  remoteIp: "127.0.0.1",
  clientIp: "10.1.2.3",
};

test("a request entry writes its content length and content when the body is captured", () => {
  const json = new HttpLogRequest(requestFields).toJson();
  assert.equal(json.contentLength, 12);
  assert.equal(json.content, '{"a":"b"}');
  assert.equal("contentOmitted" in json, false);
  assert.deepEqual(json.params, [{ name: "q", value: "x" }]);
  assert.deepEqual(json.headers, [{ name: "Host", value: "example.test" }]);
  assert.equal(json.time, "2026-01-02T03:04:05.000Z");
  assert.equal(json.methodType, "POST");
  assert.equal(json.remoteIp, "127.0.0.1");
  assert.equal(json.clientIp, "10.1.2.3");
});

test("an omitted request body writes contentOmitted true in place of content and keeps the length", () => {
  const record = new HttpLogRequest({ ...requestFields, contentOmitted: true, content: "ignored" });
  assert.equal(record.content, undefined);
  const json = record.toJson();
  assert.equal(json.contentLength, 12);
  assert.equal(json.contentOmitted, true);
  assert.equal("content" in json, false);
});

test("omitted params and headers keep their counts and drop their lists", () => {
  const json = new HttpLogRequest({
    ...requestFields,
    paramsOmitted: true,
    headersOmitted: true,
    paramsCount: 300,
    headersCount: 200,
  }).toJson();
  assert.equal(json.paramsCount, 300);
  assert.equal(json.paramsOmitted, true);
  assert.equal("params" in json, false);
  assert.equal(json.headersCount, 200);
  assert.equal(json.headersOmitted, true);
  assert.equal("headers" in json, false);
});

test("JSON.stringify of a record writes the same text as toJson", () => {
  const record = new HttpLogRequest(requestFields);
  assert.equal(JSON.stringify(record), JSON.stringify(record.toJson()));
});

test("a response entry writes its user with the tenant whole and content length always", () => {
  const tenant = "tenant-" + "x".repeat(500);
  const response = new HttpLogResponse({
    time: 0,
    host: "h",
    uri: "/u",
    user: { username: "ann", areas: ["admin"], tenant },
    statusCode: 200,
    contentType: "application/json",
    contentEncoding: "",
    contentLength: 5000,
    contentOmitted: true,
    content: undefined,
  });
  const json = response.toJson();
  assert.deepEqual(json.user, { username: "ann", areas: ["admin"], tenant });
  assert.equal(json.contentLength, 5000);
  assert.equal(json.contentOmitted, true);
  assert.equal("content" in json, false);
  assert.equal(json.statusCode, 200);
});

test("an error entry writes the nested pair only when there was an error in flight", () => {
  const base = {
    time: 0,
    taskId: "0123456789abcdef0123456789abcdef",
    host: "h",
    uri: "/u",
    statusCode: 500,
    tenant: undefined,
    exceptionClassName: "TypeError",
    exceptionMessage: "boom",
    nestedExceptionClassName: undefined,
    nestedExceptionMessage: undefined,
  };
  const plain = new HttpLogError(base).toJson();
  assert.equal(plain.taskId, base.taskId);
  assert.equal(plain.exceptionClassName, "TypeError");
  assert.equal("nestedExceptionClassName" in plain, false);
  const nested = new HttpLogError({ ...base, nestedExceptionClassName: "RangeError", nestedExceptionMessage: "first" }).toJson();
  assert.equal(nested.nestedExceptionClassName, "RangeError");
  assert.equal(nested.nestedExceptionMessage, "first");
});

test("a discard report carries its host and count", () => {
  const discarded = new HttpLogDiscarded("tenant-a", 7);
  assert.equal(discarded.host, "tenant-a");
  assert.equal(discarded.count, 7);
  assert.deepEqual({ ...discarded.toJson(), time: "" }, { time: "", host: "tenant-a", count: 7 });
});

test("an action writes its task id only when it has one", () => {
  assert.equal("taskId" in new HttpLogAction("h", "m").toJson(), false);
  assert.equal(new HttpLogAction("h", "m", "t1").toJson().taskId, "t1");
});
