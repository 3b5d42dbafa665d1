import assert from "node:assert/strict";
import { it } from "node:test";
import { bufferOf } from "../../src/values/bytes.js";

it("a Uint8Array becomes a Buffer over the same bytes, and a Buffer stays itself", () => {
  const backing = new Uint8Array([9, 1, 2, 3, 9]);
  const view = backing.subarray(1, 4);
  const buffer = bufferOf(view);
  assert.ok(Buffer.isBuffer(buffer));
  assert.deepEqual([...buffer], [1, 2, 3]);
  backing[2] = 7;
  assert.equal(buffer[1], 7);
  assert.equal(bufferOf(buffer), buffer);
});
