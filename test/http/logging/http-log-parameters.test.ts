import { test } from "node:test";
import assert from "node:assert/strict";
import { HttpLogParameters } from "../../../src/http/logging/http-log-parameters.js";

test("the defaults are readable as statics and match docs/logging.md", () => {
  assert.equal(HttpLogParameters.defaultMaxContentLength, 0);
  assert.equal(HttpLogParameters.defaultMaxItemCount, 128);
  assert.equal(HttpLogParameters.defaultThreadPoolSize, 1);
  assert.equal(HttpLogParameters.defaultQueueCapacity, 10000);
});

test("a parameter record built with nothing said takes every default", () => {
  const parameters = new HttpLogParameters();
  assert.equal(parameters.threadPoolSize, 1);
  assert.equal(parameters.queueCapacity, 10000);
  assert.equal(parameters.maxContentLength, 0);
  assert.equal(parameters.maxItemCount, 128);
});

test("the short constructors leave the values not given at their defaults", () => {
  const one = new HttpLogParameters(3);
  assert.deepEqual([one.threadPoolSize, one.queueCapacity, one.maxContentLength, one.maxItemCount], [3, 10000, 0, 128]);
  const two = new HttpLogParameters(2, 50);
  assert.deepEqual([two.threadPoolSize, two.queueCapacity, two.maxContentLength, two.maxItemCount], [2, 50, 0, 128]);
  const three = new HttpLogParameters(2, 50, 4096);
  assert.deepEqual([three.threadPoolSize, three.queueCapacity, three.maxContentLength, three.maxItemCount], [2, 50, 4096, 128]);
  const four = new HttpLogParameters(2, 50, 4096, 10);
  assert.deepEqual([four.threadPoolSize, four.queueCapacity, four.maxContentLength, four.maxItemCount], [2, 50, 4096, 10]);
  const named = new HttpLogParameters({ maxContentLength: 100 });
  assert.deepEqual([named.threadPoolSize, named.queueCapacity, named.maxContentLength, named.maxItemCount], [1, 10000, 100, 128]);
});

test("the registration overloads read a pool size, a record or nothing", () => {
  assert.equal(HttpLogParameters.from().threadPoolSize, 1);
  assert.equal(HttpLogParameters.from(4).threadPoolSize, 4);
  assert.equal(HttpLogParameters.from(4).queueCapacity, 10000);
  const record = new HttpLogParameters({ queueCapacity: 7 });
  assert.equal(HttpLogParameters.from(record), record);
});

test("a max item count of 0 reads as the default 128 and a negative one is unlimited", () => {
  const zero = new HttpLogParameters({ maxItemCount: 0 });
  assert.equal(zero.maxItemCount, 128);
  assert.equal(zero.exceedsItemCount(128), false);
  assert.equal(zero.exceedsItemCount(129), true);
  const unlimited = new HttpLogParameters({ maxItemCount: -1 });
  assert.equal(unlimited.exceedsItemCount(1_000_000), false);
});

test("a max content length of 0 logs no body, a positive one is inclusive and a negative one is unlimited", () => {
  const none = new HttpLogParameters();
  assert.equal(none.canLogContent(1), false);
  const capped = new HttpLogParameters({ maxContentLength: 100 });
  assert.equal(capped.canLogContent(100), true);
  assert.equal(capped.canLogContent(101), false);
  const unlimited = new HttpLogParameters({ maxContentLength: -1 });
  assert.equal(unlimited.canLogContent(50_000_000), true);
});

test("a negative queue capacity never fills and a positive one fills at its size", () => {
  const unlimited = new HttpLogParameters({ queueCapacity: -5 });
  assert.equal(unlimited.hasQueueRoom(10_000_000), true);
  const capped = new HttpLogParameters({ queueCapacity: 2 });
  assert.equal(capped.hasQueueRoom(1), true);
  assert.equal(capped.hasQueueRoom(2), false);
});

test("a pool size that is not a positive integer is refused", () => {
  assert.throws(() => new HttpLogParameters(0), RangeError);
  assert.throws(() => new HttpLogParameters(-1), RangeError);
  assert.throws(() => new HttpLogParameters(1.5), RangeError);
  assert.throws(() => HttpLogParameters.from(0), RangeError);
});
