import { Buffer } from "node:buffer";

/**
 * The JSON text of handlers' results, exactly as `JSON.stringify` writes it, made once for an answer that repeats.
 * A plain object of a few strings, numbers, booleans and nulls (a status, a count, an id: the usual small answer)
 * is compared, field by field, with the last such object written: when its names and values are the same, the
 * last text is answered again, flat and already measured by whatever sent it. Otherwise it is written here, and
 * anything else (an array, a class instance, a nested value, text that needs escaping) goes to `JSON.stringify`,
 * a call into the runtime of some 1,200 instructions for `{"status":"ok"}`.
 *
 * One per route, so that routes answering in turn do not take each other's text away. A route whose answers
 * differ (an entity by id, a page of rows) is told by its misses: after a few in a row its results go straight
 * to `JSON.stringify`, and one answer in `retryAfter` is compared again, should they start to repeat.
 *
 * While comparing, the fields are read once; a field's getter is called again by `JSON.stringify` only when the
 * object turns out to be one this writer leaves to it (a nested value, more than eight fields).
 * @internal
 */
export class ResultJson {
  /** The names and values of the last object written here, and its text (none at first: `{}` has no fields). */
  #names: readonly string[] = noNames;
  #values: readonly unknown[] = noNames;
  #text = "{}";
  /** The UTF-8 length of `#text`. */
  #textBytes = 2;
  /** The answers in a row that were not the last one again (counting on, once past `maxMisses`, to `retryAfter`). */
  #misses = 0;
  /** Whether the last `#compare` answered the last text again. */
  #hit = false;

  /** The JSON text of `value`, as `JSON.stringify(value)` writes it. */
  of(value: unknown): string {
    const misses = this.#misses;
    if (misses >= maxMisses) {
      if (misses < retryAfter) {
        this.#misses = misses + 1;
        return JSON.stringify(value);
      }
      // One more comparison: a miss sends the route's answers straight to `JSON.stringify` again.
      this.#misses = maxMisses - 1;
    }
    const text = this.#compare(value);
    this.#misses = this.#hit ? 0 : this.#misses + 1;
    return text;
  }

  /** The text of `value`: the last one when `value` is the last object again (`#hit`), else written anew. */
  #compare(value: unknown): string {
    // Objects whose `constructor` is Object's: plain objects, and objects made from them (whose inherited fields
    // the own-property test below sends on). Arrays, boxed primitives and instances of classes go on at once.
    if (typeof value !== "object" || value === null || (value as { constructor?: unknown }).constructor !== Object)
      return this.#fallBack(value);
    // `JSON.stringify` would call a `toJSON` found on the object or on `Object.prototype`.
    if ((value as { toJSON?: unknown }).toJSON !== undefined) return this.#fallBack(value);
    const fields = value as Record<string, unknown>;
    const names = readNames;
    const values = readValues;
    const lastNames = this.#names;
    const lastValues = this.#values;
    let count = 0;
    let same = true;
    for (const name in fields) {
      // An enumerable field someone added to `Object.prototype`: for-in sees it, `JSON.stringify` does not.
      // biome-ignore lint/suspicious/noPrototypeBuiltins: V8 reads this form in a for-in as a check of the enumeration's cache (nothing called); Object.hasOwn is a call.
      if (count === maxFields || !Object.prototype.hasOwnProperty.call(fields, name)) return this.#fallBack(value);
      const field = fields[name];
      const type = typeof field;
      if (type !== "string" && type !== "number" && type !== "boolean" && field !== null) return this.#fallBack(value);
      names[count] = name;
      values[count] = field;
      same &&= name === lastNames[count] && field === lastValues[count];
      count++;
    }
    this.#hit = same && count === lastNames.length;
    return this.#hit ? this.#text : this.#write(count);
  }

  /** Leaves `value` to `JSON.stringify`: a miss. */
  #fallBack(value: unknown): string {
    this.#hit = false;
    return JSON.stringify(value);
  }

  /** The UTF-8 length of `text`, a text this writer answered: measured once for the text it answers again. */
  byteLengthOf(text: string): number {
    return text === this.#text ? this.#textBytes : Buffer.byteLength(text);
  }

  /** Writes the text of the `count` fields just read, and keeps it as the last one. */
  #write(count: number): string {
    const names = readNames;
    const values = readValues;
    let kept = true;
    let text = "{";
    for (let i = 0; i < count; i++) {
      const name = names[i];
      const field = values[i];
      let written: string;
      if (typeof field === "string") {
        written = isPlainText(field) ? `"${field}"` : JSON.stringify(field);
        kept &&= field.length <= maxPlainText;
      } else if (typeof field === "number") written = Number.isFinite(field) ? String(field) : "null";
      else if (typeof field === "boolean") written = field ? "true" : "false";
      else written = "null";
      const quoted = isPlainText(name) ? `"${name}"` : JSON.stringify(name);
      text = i === 0 ? `${text}${quoted}:${written}` : `${text},${quoted}:${written}`;
    }
    text = `${text}}`;
    // Kept only when its values are short: the comparison is meant to cost less than the writing, and a
    // route's last answer should not hold on to a large text.
    if (kept) {
      this.#names = names.slice(0, count);
      this.#values = values.slice(0, count);
      this.#text = text;
      this.#textBytes = Buffer.byteLength(text);
    } else {
      this.#names = noNames;
      this.#values = noNames;
      this.#text = "{}";
      this.#textBytes = 2;
    }
    return text;
  }
}

const noNames: readonly string[] = Object.freeze([]);
/**
 * The names and values of the object being read, reused for every object (nothing in the reading calls back
 * into a server's pipeline, so one pair serves them all).
 */
const readNames: string[] = [];
const readValues: unknown[] = [];
/** The misses in a row after which a route's answers are taken to differ every time. */
const maxMisses = 4;
/** Past `maxMisses`, the answers left to `JSON.stringify` before one is compared again. */
const retryAfter = 1024;
/** The most fields an object written here has; a larger one goes to `JSON.stringify`. */
const maxFields = 8;
/** The longest text checked here character by character; a longer one is left to `JSON.stringify`. */
const maxPlainText = 64;

/**
 * Whether `text` is written in JSON as it is, between quotes: short, and without a quote, a backslash, a control
 * character or a surrogate (`JSON.stringify` escapes a lone one).
 */
function isPlainText(text: string): boolean {
  const length = text.length;
  if (length > maxPlainText) return false;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff)) return false;
  }
  return true;
}
