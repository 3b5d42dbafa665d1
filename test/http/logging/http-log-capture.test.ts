import { test } from "node:test";
import assert from "node:assert/strict";
import { buildLogError, buildLogRequest, buildLogResponse, type LoggedRequest } from "../../../src/http/logging/http-log-capture.js";
import { HttpLogParameters } from "../../../src/http/logging/http-log-parameters.js";
import { fakeRequest } from "./recording-writer.js";

const capture = (maxContentLength: number, maxItemCount?: number): HttpLogParameters =>
  new HttpLogParameters({ maxContentLength, maxItemCount });

test("with the default parameters no body is captured, the length is kept and the omission declared", () => {
  const entry = buildLogRequest(fakeRequest({ sentMethod: "POST", body: '{"name":"Acme"}' }), new HttpLogParameters(), undefined);
  assert.equal(entry.contentLength, 15);
  assert.equal(entry.contentOmitted, true);
  assert.equal(entry.content, undefined);
});

test("an empty body is not declared omitted", () => {
  const entry = buildLogRequest(fakeRequest(), new HttpLogParameters(), undefined);
  assert.equal(entry.contentLength, 0);
  assert.equal(entry.contentOmitted, false);
  assert.equal(entry.toJson().content, "");
});

test("a JSON body within the cap is captured as sent and one byte over the cap is not", () => {
  const body = '{"name":"Åcme"}';
  const length = Buffer.byteLength(body);
  const within = buildLogRequest(fakeRequest({ body }), capture(length), undefined);
  assert.equal(within.content, body);
  assert.equal(within.contentLength, length);
  const over = buildLogRequest(fakeRequest({ body }), capture(length - 1), undefined);
  assert.equal(over.contentOmitted, true);
  assert.equal(over.contentLength, length);
});

test("a body over the cap is measured without being read", () => {
  const request = fakeRequest({ body: "x".repeat(100) });
  // a body whose bytes throw when read: only its length may be touched
  const body = new Proxy(request.body, {
    get(target, property) {
      if (property === "byteLength" || property === "length") return target.byteLength;
      throw new Error(`the body was read (${String(property)})`);
    },
  });
  const entry = buildLogRequest({ ...request, body }, capture(10), undefined);
  assert.equal(entry.contentOmitted, true);
  assert.equal(entry.contentLength, 100);
});

test("a body that is not valid JSON keeps the record and drops the body", () => {
  const entry = buildLogRequest(fakeRequest({ sentMethod: "POST", uri: "/api/x?a=1", body: "{not json" }), capture(-1), undefined);
  assert.equal(entry.contentOmitted, true);
  assert.equal(entry.contentLength, 9);
  assert.equal(entry.uri, "/api/x");
  assert.deepEqual(entry.params, []);
});

test("onRedactContent receives the request and the body and its answer is logged", () => {
  const request = fakeRequest({ body: '{"password":"hunter2"}' });
  const seen: [LoggedRequest, string][] = [];
  const entry = buildLogRequest(request, capture(-1), (req, content) => {
    seen.push([req, content]);
    return content.replace("hunter2", "***");
  });
  assert.equal(entry.content, '{"password":"***"}');
  assert.equal(seen.length, 1);
  assert.equal(seen[0][0], request);
  assert.equal(seen[0][1], '{"password":"hunter2"}');
});

test("an onRedactContent that throws omits the body rather than logging it", () => {
  const entry = buildLogRequest(fakeRequest({ body: '{"a":1}' }), capture(-1), () => {
    throw new Error("no");
  });
  assert.equal(entry.contentOmitted, true);
});

test("a form-encoded body becomes the parameters, redacted by name, and its content is the redacted form", () => {
  const request = fakeRequest({
    sentMethod: "POST",
    uri: "/api/logon?lang=it",
    contentType: "application/x-www-form-urlencoded; charset=utf-8",
    params: [["lang", "it"]],
    body: "username=ann&password=hunter2&Token=abc",
  });
  const entry = buildLogRequest(request, capture(-1), undefined);
  assert.deepEqual(entry.params, [
    ["lang", "it"],
    ["username", "ann"],
    ["password", "<redacted>"],
    ["Token", "<redacted>"],
  ]);
  assert.equal(entry.paramsCount, 4);
  assert.equal(entry.contentOmitted, false);
  assert.equal(entry.content, "username=ann&password=%3Credacted%3E&Token=%3Credacted%3E");
  assert.ok(!JSON.stringify(entry).includes("hunter2"));
});

test("a form-encoded body that is omitted takes its parameters with it and says so", () => {
  const request = fakeRequest({
    contentType: "application/x-www-form-urlencoded",
    params: [["lang", "it"]],
    body: "username=ann&password=hunter2",
  });
  const entry = buildLogRequest(request, capture(10), undefined);
  assert.equal(entry.contentOmitted, true);
  assert.equal(entry.paramsOmitted, true);
  assert.equal(entry.params, undefined);
  assert.equal(entry.toJson().paramsOmitted, true);
  const off = buildLogRequest(request, new HttpLogParameters(), undefined);
  assert.equal(off.paramsOmitted, true);
});

test("query parameters and headers on the list reach the record as <redacted> with the name kept", () => {
  const request = fakeRequest({
    uri: "/api/x?access_token=secret&q=1",
    params: [
      ["access_token", "secret"],
      ["q", "1"],
    ],
    headers: [
      ["Host", "h"],
      ["authorization", "Bearer abc"],
      ["X-API-KEY", "k"],
      ["Accept", "*/*"],
    ],
  });
  const entry = buildLogRequest(request, new HttpLogParameters(), undefined);
  assert.deepEqual(entry.params, [
    ["access_token", "<redacted>"],
    ["q", "1"],
  ]);
  assert.deepEqual(entry.headers, [
    ["Host", "h"],
    ["authorization", "<redacted>"],
    ["X-API-KEY", "<redacted>"],
    ["Accept", "*/*"],
  ]);
  assert.equal(entry.uri, "/api/x", "the query string, which carries the values, is not logged in the uri");
  assert.ok(!JSON.stringify(entry).includes("secret"));
});

test("more parameters or headers than maxItemCount are omitted with their counts kept", () => {
  const params = Array.from({ length: 5 }, (_, i) => [`p${i}`, "v"] as const);
  const headers = Array.from({ length: 4 }, (_, i) => [`h${i}`, "v"] as const);
  const over = buildLogRequest(fakeRequest({ params, headers }), capture(0, 3), undefined);
  assert.deepEqual([over.paramsOmitted, over.paramsCount, over.params], [true, 5, undefined]);
  assert.deepEqual([over.headersOmitted, over.headersCount, over.headers], [true, 4, undefined]);
  const exact = buildLogRequest(fakeRequest({ params, headers }), capture(0, 5), undefined);
  assert.deepEqual([exact.paramsOmitted, exact.params?.length, exact.headersOmitted], [false, 5, false]);
  const unlimited = buildLogRequest(fakeRequest({ params, headers }), capture(0, -1), undefined);
  assert.equal(unlimited.paramsOmitted, false);
});

test("the request entry copies the addresses, method and host", () => {
  const entry = buildLogRequest(
    fakeRequest({ sentMethod: "DELETE", host: "Tenant.Example", remoteIp: "127.0.0.1", clientIp: "203.0.113.9" }),
    new HttpLogParameters(),
    undefined,
  );
  assert.deepEqual(
    [entry.methodType, entry.host, entry.remoteIp, entry.clientIp],
    ["DELETE", "Tenant.Example", "127.0.0.1", "203.0.113.9"],
  );
});

test("a response body is captured within the cap, after onRedactContent, and omitted past it", () => {
  const request = fakeRequest({ user: { username: "ann", areas: new Set(["a", "b"]), tenant: "t1" } });
  const response = { statusCode: 200, content: '{"token":"abc"}', contentType: "application/json", contentEncoding: "" };
  const asked: string[] = [];
  const entry = buildLogResponse(request, response, capture(100), (_req, content) => {
    asked.push(content);
    return "[redacted body]";
  });
  assert.equal(entry.content, "[redacted body]");
  assert.deepEqual(asked, ['{"token":"abc"}']);
  assert.deepEqual(entry.user, { username: "ann", areas: ["a", "b"], tenant: "t1" });
  assert.equal(entry.contentLength, 15);
  const over = buildLogResponse(request, response, capture(10), () => "never");
  assert.deepEqual([over.contentOmitted, over.contentLength, over.content], [true, 15, undefined]);
  const off = buildLogResponse(request, response, new HttpLogParameters(), undefined);
  assert.equal(off.contentOmitted, true);
});

test("the error entry renders the exception on the spot and keeps the task id", () => {
  const request = fakeRequest({ uri: "/api/fail?token=x", user: { username: "ann", areas: [], tenant: "acme" } });
  const entry = buildLogError(request, 500, "abc123", new TypeError("broken", { cause: new RangeError("earlier") }));
  assert.deepEqual(
    [
      entry.taskId,
      entry.uri,
      entry.statusCode,
      entry.tenant,
      entry.exceptionClassName,
      entry.exceptionMessage,
      entry.nestedExceptionClassName,
      entry.nestedExceptionMessage,
    ],
    ["abc123", "/api/fail", 500, "acme", "TypeError", "broken", "RangeError", "earlier"],
  );
  const none = buildLogError(request, 503, "t", undefined);
  assert.equal(none.exceptionClassName, "");
  assert.match(none.exceptionMessage, /503/);
});
