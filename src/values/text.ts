/**
 * Text as the databases see it. A column's size is counted in Unicode code points by every engine Tenon
 * supports (PostgreSQL `varchar(n)`, MariaDB `VARCHAR(n)` in utf8mb4; SQLite is held to the same rule), not
 * in UTF-16 units nor in grapheme clusters. A lone UTF-16 surrogate has no UTF-8 form (MariaDB would store
 * `?`, the others U+FFFD) and PostgreSQL cannot store a NUL character, so neither is accepted anywhere.
 */

/** Why a text cannot be stored unchanged on every engine, or undefined when it can. */
export type TextFault = "nul" | "lone-surrogate";

/** The number of Unicode code points of `text`: a surrogate pair counts once, a lone surrogate once. */
export function codePointLength(text: string): number {
  let length = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length--;
        i++;
      }
    }
  }
  return length;
}

/** Whether `text` has at most `size` code points; cheap for the usual text well within its size. */
export function fitsSize(text: string, size: number): boolean {
  // A code point is one or two UTF-16 units: up to `size` units always fit, beyond twice never.
  if (text.length <= size) return true;
  if (text.length > 2 * size) return false;
  return codePointLength(text) <= size;
}

/** `String.prototype.isWellFormed` (ES2024, in every Node.js Tenon supports), which the ES2023 library does not declare. */
interface WellFormedText {
  isWellFormed(): boolean;
}

/**
 * What keeps `text` from being stored the same on every engine: a NUL character (named first when the text
 * has both) or a lone surrogate. Two built-ins answer for the usual text: `indexOf` finds no NUL and
 * `isWellFormed` no lone surrogate (at once for a text V8 holds a byte per character); a loop over the UTF-16
 * units in JavaScript cost some 30 instructions a character, and the Unicode-mode expression `/[\x00\p{Cs}]/u`
 * three times that.
 */
export function textFaultOf(text: string): TextFault | undefined {
  if (text.indexOf("\0") < 0) return (text as unknown as WellFormedText).isWellFormed() ? undefined : "lone-surrogate";
  return "nul";
}
