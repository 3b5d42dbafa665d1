import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Mutex } from "../../src/engines/mutex.js";

describe("the embedded engine's lock", () => {
  it("hands the lock on first come, first served", async () => {
    const mutex = new Mutex();
    const order: string[] = [];
    await mutex.lock();
    const second = mutex.lock().then(() => order.push("second"));
    const third = mutex.lock().then(() => order.push("third"));
    mutex.unlock();
    await second;
    assert.equal(mutex.isLocked, true, "the lock went to the second, not free");
    mutex.unlock();
    await third;
    mutex.unlock();
    assert.deepEqual(order, ["second", "third"]);
    assert.equal(mutex.isLocked, false);
  });

  it("wakes every caller waiting for a free moment once the lock is free, however many there are", async () => {
    const mutex = new Mutex();
    await mutex.lock();
    const woken: number[] = [];
    const idle = [1, 2, 3].map((n) => mutex.idle().then(() => woken.push(n)));
    const taker = mutex.lock();
    mutex.unlock(); // to the taker first
    await taker;
    assert.deepEqual(woken, [], "a free moment has not come yet");
    mutex.unlock();
    await Promise.all(idle);
    assert.deepEqual(woken, [1, 2, 3]);
    assert.equal(mutex.isLocked, false, "watching never takes the lock");
    await mutex.idle(); // a free lock answers at once
  });
});
