// SQLite's date truncations (aggregates' `truncate`: day, week, month, year) against a real database: a date as
// Tenon writes it is cut as text, any other text goes through strftime, and both give the UTC period's start.
import assert from "node:assert/strict";
import { it } from "node:test";
import BetterSqlite3 from "better-sqlite3";
import { SqliteDialect } from "../../../src/engines/sqlite/sqlite-dialect.js";
import type { DateTruncation } from "../../../src/mapping/aggregate-decorator.js";

const dialect = new SqliteDialect();
const units: readonly DateTruncation[] = ["day", "week", "month", "year"];

/** Each unit's truncation of `text`, as SQLite answers it. */
function truncated(text: string | null): Record<DateTruncation, string | null> {
  const db = new BetterSqlite3(":memory:");
  try {
    const columns = units.map((unit) => `${dialect.truncateDate("v", unit)} AS ${unit}`).join(", ");
    return db.prepare(`SELECT ${columns} FROM (SELECT ? AS v)`).get(text) as Record<DateTruncation, string | null>;
  } finally {
    db.close();
  }
}

it("a date as Tenon writes it (UTC, milliseconds, Z) is truncated to its day, Monday, month and year", () => {
  assert.deepEqual(truncated(new Date("2024-02-29T23:59:59.999Z").toISOString()), {
    day: "2024-02-29T00:00:00.000Z",
    week: "2024-02-26T00:00:00.000Z",
    month: "2024-02-01T00:00:00.000Z",
    year: "2024-01-01T00:00:00.000Z",
  });
});

it("text in another form is read as strftime reads it: an offset moves it to its UTC period", () => {
  // 23:30 at UTC-2 on 31 March is 01:30 UTC on 1 April.
  assert.deepEqual(truncated("2024-03-31T23:30:00-02:00"), {
    day: "2024-04-01T00:00:00.000Z",
    week: "2024-04-01T00:00:00.000Z",
    month: "2024-04-01T00:00:00.000Z",
    year: "2024-01-01T00:00:00.000Z",
  });
  assert.deepEqual(truncated("2023-12-31 08:00:00"), {
    day: "2023-12-31T00:00:00.000Z",
    week: "2023-12-25T00:00:00.000Z",
    month: "2023-12-01T00:00:00.000Z",
    year: "2023-01-01T00:00:00.000Z",
  });
});

it("NULL stays NULL, and text that is no date gives no period", () => {
  assert.deepEqual(truncated(null), { day: null, week: null, month: null, year: null });
  assert.deepEqual(truncated("not a date"), { day: null, week: null, month: null, year: null });
  assert.deepEqual(truncated("abcd-ef-ghTij:kl:mn.opqZ"), { day: null, week: null, month: null, year: null });
});
