/**
 * ISO-8601 UTC text for dates, the form Tenon stores on the embedded engine and writes in JSON
 * (`2024-01-31T09:05:00.000Z`). `Date.prototype.toISOString` and the `Date` text parser go through the
 * C library's formatted printing and a general grammar; these do the one fixed shape with integer
 * arithmetic and hand everything else to the built-ins, so their answers are always the built-ins'.
 * @internal
 */

import { latin1Reader } from "./latin1-text.js";

const dayMs = 86_400_000;
/** The days of each month of a common year. */
const daysInMonth = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/** The text being formatted, a byte per character; the separators never change. */
const isoBytes = Buffer.from("0000-00-00T00:00:00.000Z", "latin1");
const isoText = latin1Reader(isoBytes, 24);

/** `date.toISOString()`, computed without the C library for years 0 to 9999. Throws `RangeError` for an invalid date, as the built-in does. */
export function formatIsoDate(date: Date): string {
  return formatIsoTime(date.getTime(), date);
}

/**
 * The ISO text of a time value in ms; `date` (optional) is the same time as a Date, for the fallback. The digits
 * are written as bytes and read as one string (latin1-text.ts): half the instructions of joining 14 pieces.
 */
export function formatIsoTime(time: number, date?: Date): string {
  // 0000-01-01 to 9999-12-31: the four-digit years that toISOString writes without a sign.
  if (!(time >= -62167219200000 && time <= 253402300799999)) return (date ?? new Date(time)).toISOString();
  const slot = slotOf(time);
  if (recentTimes[slot] === time) return recentTexts[slot];
  const text = computeIsoTime(time);
  recentTimes[slot] = time;
  recentTexts[slot] = text;
  return text;
}

/**
 * The texts of the times read or written lately, by time, in a small table where a time has one place: a date
 * read from a row and written into the answer's JSON (an entity read by id, the reload after a write) is
 * formatted once, read back from here the second time. The text of a time never changes, so an entry is right
 * however old it is; a newer time in its place only makes the next one computed again.
 */
const recentSize = 64;
const recentTimes = new Float64Array(recentSize).fill(Number.NaN);
const recentTexts: string[] = new Array<string>(recentSize).fill("");

/** The place of a time in the table: its seconds, as times a row holds often fall on a whole second. */
function slotOf(time: number): number {
  return Math.floor(time / 1000) & (recentSize - 1);
}

/** The ISO text of a time value from 0000-01-01 to 9999-12-31, computed. */
function computeIsoTime(time: number): string {
  const days = Math.floor(time / dayMs);
  let rest = time - days * dayMs;
  // Days to civil date (H. Hinnant's algorithm, proleptic Gregorian, era of 400 years).
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1;
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const ms = rest - seconds * 1000;
  const b = isoBytes;
  const century = Math.floor(year / 100);
  writeTwo(b, 0, century);
  writeTwo(b, 2, year - century * 100);
  writeTwo(b, 5, month);
  writeTwo(b, 8, day);
  writeTwo(b, 11, hours);
  writeTwo(b, 14, minutes);
  writeTwo(b, 17, seconds);
  const hundreds = Math.floor(ms / 100);
  b[20] = 48 + hundreds;
  writeTwo(b, 21, ms - hundreds * 100);
  return isoText();
}

/** Writes a number from 0 to 99 as two ASCII digits at `at`. */
function writeTwo(bytes: Buffer, at: number, value: number): void {
  const tens = Math.floor(value / 10);
  bytes[at] = 48 + tens;
  bytes[at + 1] = 48 + value - tens * 10;
}

/** The character that ends each field of `YYYY-MM-DDTHH:MM:SS.sssZ` (`-`, `-`, `T`, `:`, `:`, `.`, `Z`), and where it stands. */
const isoEnders = [45, 45, 84, 58, 58, 46, 90];
const isoEnderAt = [4, 7, 10, 13, 16, 19, 23];
/** The fields of the text being read: year, month, day, hours, minutes, seconds, milliseconds. */
const isoFields = new Int32Array(7);

/**
 * The time value of ISO text: `YYYY-MM-DDTHH:MM:SS.sssZ` with every field in range is read by hand; any
 * other text gets exactly what `new Date(text).getTime()` answers (NaN for text that is not a date).
 */
export function parseIsoTime(text: string): number {
  // One loop over the characters rather than a reader per field: some 370 instructions more per date, but a
  // fraction of the machine code (measured on S2: 122 -> 35 instruction-cache misses per date read).
  if (text.length === 24) {
    let field = 0;
    let value = 0;
    for (let i = 0; i < 24; i++) {
      const code = text.charCodeAt(i);
      if (code >= 48 && code <= 57) value = value * 10 + code - 48;
      else if (code === isoEnders[field] && i === isoEnderAt[field]) {
        isoFields[field++] = value;
        value = 0;
      } else return new Date(text).getTime();
    }
    const year = isoFields[0];
    const month = isoFields[1];
    const day = isoFields[2];
    const hours = isoFields[3];
    const minutes = isoFields[4];
    const seconds = isoFields[5];
    if (
      field === 7 &&
      month >= 1 &&
      month <= 12 &&
      day >= 1 &&
      day <= monthLength(year, month) &&
      hours <= 23 &&
      minutes <= 59 &&
      seconds <= 59
    ) {
      const time = daysFromCivil(year, month, day) * dayMs + hours * 3_600_000 + minutes * 60_000 + seconds * 1000 + isoFields[6];
      // Every field in range, written as toISOString writes it: the text is the time's own, kept for its formatting.
      const slot = slotOf(time);
      recentTimes[slot] = time;
      recentTexts[slot] = text;
      return time;
    }
  }
  return new Date(text).getTime();
}

const strictIsoDate = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2}))?$/;

/**
 * Reads an ISO-8601 date (`2024-05-01`, read as UTC midnight) or date and time with a zone (`Z` or
 * `+02:00`); a time without a zone is ambiguous and refused, as is an impossible calendar date. The one
 * strict reader of dates a client sends; `parseIsoTime` is for the text Tenon itself stored.
 */
export function parseIsoDate(text: string): Date | undefined {
  const match = strictIsoDate.exec(text);
  if (match === null) return undefined;
  const [, y, mo, d, h = "0", mi = "0", s = "0", fraction = "", zone = "Z"] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > monthLength(year, month) || hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (zone !== "Z") {
    const offsetHours = Number(zone.slice(1, 3));
    const offsetRest = Number(zone.slice(4, 6));
    if (offsetHours > 23 || offsetRest > 59) return undefined;
    offsetMinutes = (zone[0] === "-" ? -1 : 1) * (offsetHours * 60 + offsetRest);
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute - offsetMinutes, second, Number(fraction.padEnd(3, "0").slice(0, 3)));
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function monthLength(year: number, month: number): number {
  if (month !== 2) return daysInMonth[month - 1];
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
}

/** Civil date to days since 1970-01-01 (the inverse of the computation in `formatIsoTime`). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const monthIndex = month > 2 ? month - 3 : month + 9;
  const dayOfYear = Math.floor((153 * monthIndex + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}
