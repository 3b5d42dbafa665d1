import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { formatIsoDate, formatIsoTime, parseIsoDate, parseIsoTime } from "../../src/values/iso-date.js";
import { seededRandom } from "../support/seeded-random.js";

const builtinText = (time: number): string => {
  try {
    return new Date(time).toISOString();
  } catch (error) {
    return (error as Error).name;
  }
};
const ownText = (time: number): string => {
  try {
    return formatIsoTime(time);
  } catch (error) {
    return (error as Error).name;
  }
};

describe("ISO dates written and read by hand", () => {
  test("formatting answers what toISOString answers, over the whole range of dates and at its edges", () => {
    const next = seededRandom(20261122);
    const times = [
      0,
      -1,
      1,
      951782400000,
      951868800000,
      -62167219200000,
      -62167219200001,
      253402300799999,
      253402300800000,
      8.64e15,
      -8.64e15,
      8.64e15 + 1,
      Number.NaN,
    ];
    for (let i = 0; i < 200_000; i++) times.push(Math.floor((next() * 2 - 1) * (next() < 0.5 ? 8.64e15 : 4e12)));
    for (const time of times) assert.equal(ownText(time), builtinText(time), `time ${time}`);
    assert.throws(() => formatIsoDate(new Date(Number.NaN)), RangeError, "an invalid date throws as the built-in does");
  });

  test("reading a date's own text gives its time back, and any other text gets what the Date parser answers", () => {
    const next = seededRandom(7);
    for (let i = 0; i < 100_000; i++) {
      const text = new Date(Math.floor((next() * 2 - 1) * 4e12)).toISOString();
      assert.equal(parseIsoTime(text), new Date(text).getTime(), text);
    }
    const others = [
      "2024-02-29T12:00:00.000Z", // a leap day
      "2023-02-29T00:00:00.000Z", // no leap day: the built-in rolls over to March 1st
      "2024-04-31T00:00:00.000Z",
      "2024-01-01T24:00:00.000Z", // 24:00 is the next midnight
      "2024-01-01T23:60:00.000Z",
      "2024-01-01T-1:00:00.000Z",
      "2024-00-01T00:00:00.000Z",
      "2024-13-01T00:00:00.000Z",
      "0000-01-01T00:00:00.000Z",
      "2024-01-01 00:00:05", // SQLite's CURRENT_TIMESTAMP shape
      "2024-01-01T00:00:05Z",
      "2024-01-01T00:00:05.123+02:00",
      "abcd-ef-ghTij:kl:mn.opqZ",
      "2024-1-01T00:00:00.0000Z",
      "2024-01-01T00:00:00.0000", // 24 characters, a digit where the Z stands
      "2024-01-01T00:00:00.00Z0",
      "20240-01-01T00:00:00.00Z",
      "+010000-01-01T00:00:00.000Z",
      "",
    ];
    for (const text of others) assert.ok(Object.is(parseIsoTime(text), new Date(text).getTime()), JSON.stringify(text));
  });

  test("a time read or written lately is written again as toISOString writes it, whatever took its place since", () => {
    const next = seededRandom(30);
    const texts: string[] = [];
    for (let i = 0; i < 5_000; i++) {
      // Many times per place of the table of recent texts (64 places by whole second), read in and written out in turn.
      const text = new Date(Math.floor(next() * 4e12) - (i % 3) * 1000).toISOString();
      texts.push(text);
      const time = parseIsoTime(text);
      assert.equal(formatIsoTime(time), text);
      const earlier = texts[Math.floor(next() * texts.length)];
      assert.equal(formatIsoTime(Date.parse(earlier)), earlier);
      assert.equal(formatIsoTime(time + 1), new Date(time + 1).toISOString());
      // Text that reads as another time than its own spelling (rolled over by the built-in) is never kept as its text.
      const rolled = parseIsoTime("2023-02-29T00:00:00.000Z");
      assert.equal(formatIsoTime(rolled), new Date(rolled).toISOString());
    }
  });
});

describe("the strict ISO date reader", () => {
  test("reads a date as UTC midnight and a time with its zone", () => {
    assert.equal(parseIsoDate("2024-05-01")?.toISOString(), "2024-05-01T00:00:00.000Z");
    assert.equal(parseIsoDate("2024-05-01T10:00:00+02:00")?.toISOString(), "2024-05-01T08:00:00.000Z");
    assert.equal(parseIsoDate("2024-02-29T23:59:59.123456Z")?.toISOString(), "2024-02-29T23:59:59.123Z");
  });

  test("refuses a time without a zone, an impossible date and text the built-in parser would accept", () => {
    for (const text of [
      "2024-05-01T10:00:00",
      "2023-02-29",
      "2024-13-01",
      "2024-05-01T24:00:00Z",
      "May 1, 2024",
      "2024-05-01T10:00Z+25:00",
    ]) {
      assert.equal(parseIsoDate(text), undefined, text);
    }
  });
});
